package io.mongocdc.workflows.model;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Renders a decoded JSON value (maps, lists, strings, numbers, booleans) back to JSON text, to
 * show a rejected edit as the operator sent it, or a snapshot filter sent as an object. Deterministic: keys keep their arrival order.
 */
public final class JsonText {

  private JsonText() {}

  public static String of(Object value) {
    StringBuilder out = new StringBuilder();
    append(out, value);
    return out.toString();
  }

  private static void append(StringBuilder out, Object value) {
    if (value instanceof Map<?, ?> map) {
      out.append('{');
      Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
      while (entries.hasNext()) {
        Map.Entry<?, ?> entry = entries.next();
        appendString(out, String.valueOf(entry.getKey()));
        out.append(':');
        append(out, entry.getValue());
        if (entries.hasNext()) {
          out.append(',');
        }
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        append(out, list.get(i));
      }
      out.append(']');
    } else if (value instanceof String text) {
      appendString(out, text);
    } else {
      out.append(value);
    }
  }

  private static void appendString(StringBuilder out, String text) {
    out.append('"');
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
