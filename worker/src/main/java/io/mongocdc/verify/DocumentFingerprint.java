package io.mongocdc.verify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A 64-bit fingerprint of one document's canonical form: its key text and its JSON with what
 * {@code jsonb} does not keep taken out. So the document as the source renders it and the row as
 * the destination stores it give the same fingerprint exactly when {@code jsonb} would call them
 * equal: object fields sorted (a repeated name keeps its last value), numbers by value ({@code 1.0}
 * and {@code 1.00} are one number), no spacing. Summed over a range, fingerprints give a hash that
 * does not depend on the order documents are read in.
 */
public final class DocumentFingerprint {

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

  private DocumentFingerprint() {}

  /** The fingerprint of the document {@code json} (null for none) under {@code key}. */
  public static long of(String key, String json) {
    StringBuilder canonical = new StringBuilder(json == null ? 16 : json.length());
    canonical.append(key).append('\u0000');
    if (json != null) {
      try {
        write(JSON.readTree(json), canonical);
      } catch (JsonProcessingException e) {
        // Not JSON at all: the text itself is its form, so it still differs from any real document.
        canonical.append('\u0001').append(json);
      }
    }
    return ByteBuffer.wrap(sha256(canonical.toString())).getLong();
  }

  /** Canonical text of a JSON value. */
  static String canonical(String json) throws JsonProcessingException {
    StringBuilder out = new StringBuilder();
    write(JSON.readTree(json), out);
    return out.toString();
  }

  private static void write(JsonNode node, StringBuilder out) throws JsonProcessingException {
    switch (node.getNodeType()) {
      case OBJECT -> {
        List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
          fields.add(it.next());
        }
        fields.sort(Map.Entry.comparingByKey());
        out.append('{');
        for (int i = 0; i < fields.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          out.append(JSON.writeValueAsString(fields.get(i).getKey())).append(':');
          write(fields.get(i).getValue(), out);
        }
        out.append('}');
      }
      case ARRAY -> {
        out.append('[');
        for (int i = 0; i < node.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          write(node.get(i), out);
        }
        out.append(']');
      }
      case NUMBER -> {
        BigDecimal value = node.decimalValue();
        out.append(value.signum() == 0 ? "0" : value.stripTrailingZeros().toString());
      }
      case STRING -> out.append(JSON.writeValueAsString(node.textValue()));
      case BOOLEAN -> out.append(node.booleanValue());
      default -> out.append("null");
    }
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no SHA-256", e);
    }
  }
}
