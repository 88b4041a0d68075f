package io.mongocdc.source;

import java.util.HexFormat;
import java.util.Objects;
import org.bson.BsonBinaryReader;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.io.ByteBufferBsonInput;

/**
 * A change stream resume token: the {@code _data} hex string of an event's {@code _id} (or of a
 * post-batch resume token).
 *
 * <p>{@code _data} is a hex-encoded KeyString whose byte order is the stream's order, so two
 * tokens of one deployment compare by their bytes. The first KeyString element is the event's
 * cluster time (type byte {@code 0x82}, then seconds and increment as big-endian 32-bit
 * integers), which is what {@link #clusterTime()} reads.
 */
public final class ResumeToken implements Comparable<ResumeToken> {

  private static final int TIMESTAMP_TYPE_BYTE = 0x82;

  private final String data;

  private ResumeToken(String data) {
    this.data = data;
  }

  /**
   * Wraps a {@code _data} hex string.
   *
   * @throws IllegalArgumentException if the text is empty, not hex, or of odd length
   */
  public static ResumeToken of(String data) {
    Objects.requireNonNull(data, "resume token data");
    if (data.isEmpty()) {
      throw new IllegalArgumentException("resume token is empty");
    }
    if (data.length() % 2 != 0) {
      throw new IllegalArgumentException(
          "resume token is not hex (odd length " + data.length() + "): " + abbreviate(data));
    }
    for (int i = 0; i < data.length(); i++) {
      if (Character.digit(data.charAt(i), 16) < 0) {
        throw new IllegalArgumentException(
            "resume token is not hex (character '" + data.charAt(i) + "' at " + i + "): "
                + abbreviate(data));
      }
    }
    return new ResumeToken(data.toUpperCase(java.util.Locale.ROOT));
  }

  /**
   * Reads a token from a resume-token document {@code {_data: "<hex>"}}, as found in an event's
   * {@code _id} or returned as a post-batch resume token.
   *
   * @throws IllegalArgumentException if the document has no string {@code _data}
   */
  public static ResumeToken fromDocument(BsonDocument idDocument) {
    if (idDocument == null) {
      throw new IllegalArgumentException("resume token document is missing");
    }
    BsonValue value = idDocument.get("_data");
    if (value == null || !value.isString()) {
      throw new IllegalArgumentException(
          "resume token document has no string _data field: " + abbreviate(idDocument.toJson()));
    }
    return of(value.asString().getValue());
  }

  /**
   * Reads the token of a raw change event ({@code _id._data}) without decoding anything else:
   * the reader thread calls this for every event, so it must stay cheap.
   *
   * @throws IllegalArgumentException if the event has no resume token document
   */
  public static ResumeToken ofEvent(RawBsonDocument event) {
    try (BsonBinaryReader reader = new BsonBinaryReader(new ByteBufferBsonInput(event.getByteBuffer()))) {
      reader.readStartDocument();
      while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
        if (!reader.readName().equals("_id")) {
          reader.skipValue();
          continue;
        }
        if (reader.getCurrentBsonType() != BsonType.DOCUMENT) {
          throw new IllegalArgumentException("the event's _id is a " + reader.getCurrentBsonType()
              + ", not a resume token document");
        }
        reader.readStartDocument();
        while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
          if (reader.readName().equals("_data") && reader.getCurrentBsonType() == BsonType.STRING) {
            return of(reader.readString());
          }
          reader.skipValue();
        }
        throw new IllegalArgumentException("the event's _id has no string _data field");
      }
    }
    throw new IllegalArgumentException("the event has no _id");
  }

  /** The {@code _data} hex text, upper case, as MongoDB writes it. */
  public String data() {
    return data;
  }

  /** The resume-token document {@code {_data: "<hex>"}} to pass as {@code resumeAfter}. */
  public BsonDocument toDocument() {
    return new BsonDocument("_data", new BsonString(data));
  }

  /**
   * The cluster time encoded at the start of the token.
   *
   * @throws IllegalStateException if the token does not start with a KeyString timestamp
   */
  public BsonTimestamp clusterTime() {
    if (data.length() < 18 || Integer.parseInt(data.substring(0, 2), 16) != TIMESTAMP_TYPE_BYTE) {
      throw new IllegalStateException(
          "resume token does not start with a cluster time: " + abbreviate(data));
    }
    byte[] bytes = HexFormat.of().parseHex(data, 2, 18);
    long value = 0;
    for (byte b : bytes) {
      value = (value << 8) | (b & 0xFF);
    }
    return new BsonTimestamp(value);
  }

  /** True if this token is strictly later in the stream than {@code other}. */
  public boolean isAfter(ResumeToken other) {
    return compareTo(other) > 0;
  }

  /** Orders tokens by their KeyString bytes, which is stream order. */
  @Override
  public int compareTo(ResumeToken other) {
    // Upper-case hex digits sort like the bytes they encode, and a shorter KeyString that is a
    // prefix of a longer one sorts first, as String.compareTo does.
    return data.compareTo(other.data);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ResumeToken other && data.equals(other.data);
  }

  @Override
  public int hashCode() {
    return data.hashCode();
  }

  @Override
  public String toString() {
    return data;
  }

  static String abbreviate(String text) {
    return text.length() <= 80 ? text : text.substring(0, 77) + "...";
  }
}
