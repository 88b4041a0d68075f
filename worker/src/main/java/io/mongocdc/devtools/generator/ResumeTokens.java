package io.mongocdc.devtools.generator;

import io.mongocdc.source.ResumeToken;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * Builds resume tokens with the layout MongoDB 6.0+ writes in {@code _id._data}: a KeyString of
 * cluster time, token version, token type, transaction operation index, from-invalidate flag,
 * collection UUID and event identifier. The byte order of such tokens is stream order, as it is
 * for the server's, which is what the pipeline relies on.
 *
 * <p>The load generator gives its events and idle batches these tokens; the scripted change events
 * of the tests use the same ones, so both look like a server's stream.
 */
public final class ResumeTokens {

  private static final HexFormat HEX = HexFormat.of().withUpperCase();

  private ResumeTokens() {}

  /** The token of a data-change event. */
  public static ResumeToken event(
      BsonTimestamp clusterTime, int txnOpIndex, UUID collectionUuid, BsonValue documentId) {
    StringBuilder hex = new StringBuilder(128);
    appendClusterTime(hex, clusterTime);
    hex.append("2B04"); // token version 2
    hex.append("2C0100"); // token type 128: an event token
    appendSmallInt(hex, txnOpIndex);
    hex.append("6E"); // fromInvalidate: false
    hex.append("5A1004").append(uuidHex(collectionUuid)); // collection UUID as BinData(4)
    hex.append("46"); // event identifier: an object {_id: <documentKey._id>}
    appendIdField(hex, documentId);
    hex.append("00"); // end of object
    hex.append("04"); // end of KeyString
    return ResumeToken.of(hex.toString());
  }

  /** The token of a non-document event (drop, rename, invalidate ...) at a cluster time. */
  public static ResumeToken control(BsonTimestamp clusterTime, UUID collectionUuid, String type) {
    StringBuilder hex = new StringBuilder(96);
    appendClusterTime(hex, clusterTime);
    hex.append("2B04").append("2C0100");
    appendSmallInt(hex, 0);
    hex.append("INVALIDATE".equalsIgnoreCase(type) ? "6F" : "6E");
    hex.append("5A1004").append(uuidHex(collectionUuid));
    hex.append("463C").append(HEX.formatHex("operationType".getBytes(StandardCharsets.UTF_8)))
        .append("00")
        .append(HEX.formatHex(type.getBytes(StandardCharsets.UTF_8)))
        .append("0000");
    hex.append("04");
    return ResumeToken.of(hex.toString());
  }

  /** A post-batch (high-water-mark) token at a cluster time, as an idle cursor returns. */
  public static ResumeToken highWaterMark(BsonTimestamp clusterTime) {
    StringBuilder hex = new StringBuilder(32);
    appendClusterTime(hex, clusterTime);
    hex.append("2B04").append("2B00"); // token type 0: high-water mark
    hex.append("04");
    return ResumeToken.of(hex.toString());
  }

  private static void appendClusterTime(StringBuilder hex, BsonTimestamp clusterTime) {
    hex.append("82").append(HEX.toHexDigits(clusterTime.getValue()));
  }

  /** KeyString small non-negative integers: zero, then one and two byte forms, order-preserving. */
  private static void appendSmallInt(StringBuilder hex, int value) {
    if (value < 0 || value >= 32768) {
      throw new IllegalArgumentException("index out of range: " + value);
    }
    if (value == 0) {
      hex.append("29");
    } else if (value < 128) {
      hex.append("2B").append(HEX.toHexDigits((byte) (value << 1)));
    } else {
      hex.append("2C").append(HEX.toHexDigits((short) (value << 1)));
    }
  }

  private static void appendIdField(StringBuilder hex, BsonValue id) {
    String name = HEX.formatHex("_id".getBytes(StandardCharsets.UTF_8)) + "00";
    switch (id.getBsonType()) {
      case OBJECT_ID -> hex.append("64").append(name).append(HEX.formatHex(id.asObjectId().getValue().toByteArray()));
      case STRING -> hex.append("3C").append(name)
          .append(HEX.formatHex(id.asString().getValue().getBytes(StandardCharsets.UTF_8)))
          .append("00");
      case INT32 -> hex.append("2B").append(name).append(HEX.toHexDigits(id.asInt32().getValue()));
      case INT64 -> hex.append("2B").append(name).append(HEX.toHexDigits(id.asInt64().getValue()));
      default -> hex.append("14").append(name)
          .append(HEX.formatHex(id.toString().getBytes(StandardCharsets.UTF_8)))
          .append("00");
    }
  }

  private static String uuidHex(UUID uuid) {
    return HEX.toHexDigits(uuid.getMostSignificantBits()) + HEX.toHexDigits(uuid.getLeastSignificantBits());
  }
}
