package io.mongocdc.decode;

/**
 * Makes document JSON text storable as PostgreSQL {@code jsonb}, which cannot hold some values
 * JSON text can spell:
 *
 * <ul>
 *   <li>the NUL character: <code>&#92;u0000</code> in a string or a field name (jsonb refuses it with
 *       "unsupported Unicode escape sequence"), and a raw NUL character, which PostgreSQL text
 *       cannot hold at all;
 *   <li>unpaired UTF-16 surrogate escapes (<code>&#92;uD800</code> without a following low surrogate, or
 *       a lone low surrogate), which are not Unicode characters.
 * </ul>
 *
 * <p>Each such character is replaced by U+FFFD (the Unicode replacement character, written as
 * the escape <code>&#92;uFFFD</code>), so the document still parses and every other value is intact. The
 * caller keeps the exact original text beside it ({@code _raw_doc}), so nothing is lost. Text
 * without any <code>&#92;u</code> escape and without NUL is returned as is, after one scan.
 */
public final class JsonbSanitizer {

  static final String REPLACEMENT = "\\uFFFD";

  private JsonbSanitizer() {}

  /** The text unchanged if jsonb can hold it, else a copy with the offending characters replaced. */
  public static String sanitize(String json) {
    if (json.indexOf("\\u") < 0 && json.indexOf('\0') < 0) {
      return json;
    }
    StringBuilder out = null;
    int copiedUpTo = 0;
    int n = json.length();
    int i = 0;
    while (i < n) {
      char c = json.charAt(i);
      if (c == '\0') {
        out = append(out, json, copiedUpTo, i).append(REPLACEMENT);
        copiedUpTo = ++i;
        continue;
      }
      if (c != '\\' || i + 1 >= n) {
        i++;
        continue;
      }
      char next = json.charAt(i + 1);
      if (next != 'u' || i + 6 > n) {
        i += 2; // any other escape, including \\ : skip both characters
        continue;
      }
      int unit = hex4(json, i + 2);
      if (unit < 0) {
        i += 2; // malformed; leave it to the server to report
        continue;
      }
      if (unit == 0) {
        out = append(out, json, copiedUpTo, i).append(REPLACEMENT);
        copiedUpTo = i += 6;
      } else if (Character.isHighSurrogate((char) unit)) {
        int low = i + 12 <= n && json.charAt(i + 6) == '\\' && json.charAt(i + 7) == 'u'
            ? hex4(json, i + 8)
            : -1;
        if (low >= 0 && Character.isLowSurrogate((char) low)) {
          i += 12; // a proper pair
        } else {
          out = append(out, json, copiedUpTo, i).append(REPLACEMENT);
          copiedUpTo = i += 6;
        }
      } else if (Character.isLowSurrogate((char) unit)) {
        out = append(out, json, copiedUpTo, i).append(REPLACEMENT);
        copiedUpTo = i += 6;
      } else {
        i += 6;
      }
    }
    if (out == null) {
      return json;
    }
    return out.append(json, copiedUpTo, n).toString();
  }

  private static StringBuilder append(StringBuilder out, String json, int from, int to) {
    if (out == null) {
      out = new StringBuilder(json.length() + 16);
    }
    return out.append(json, from, to);
  }

  private static int hex4(String s, int at) {
    if (at + 4 > s.length()) {
      return -1;
    }
    int v = 0;
    for (int k = 0; k < 4; k++) {
      int d = Character.digit(s.charAt(at + k), 16);
      if (d < 0) {
        return -1;
      }
      v = (v << 4) | d;
    }
    return v;
  }
}
