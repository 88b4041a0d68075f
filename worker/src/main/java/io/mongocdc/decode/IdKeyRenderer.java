package io.mongocdc.decode;

import java.nio.charset.StandardCharsets;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Renders {@code _id} values as key text that is injective under MongoDB's own equality: equal
 * {@code _id}s (int 1, long 1, double 1.0, Decimal128 1.00) give the same text, different ones
 * (an ObjectId and a string of the same hex digits, a long and the nearest double, documents
 * with the same fields in another order) never do. The grammar is in {@code docs/id-keys.md};
 * in short: ObjectIds are their 24 hex digits, strings are JSON-quoted, numbers are canonical
 * decimals, documents and arrays look like compact JSON, other types are tagged
 * ({@code Date(...)}, {@code BinData(...)}, ...).
 *
 * <p>Thread-safe and stateless. Everything except the common scalar types is rendered from raw
 * BSON bytes by {@link IdKeyWriter}, so there is a single definition of the text.
 */
public final class IdKeyRenderer implements KeyRenderer {

  private static final byte[] ID_NAME = "_id".getBytes(StandardCharsets.US_ASCII);

  /** The key text of a decoded {@code _id} value; prefer {@link #renderIdOf} where raw bytes exist. */
  public String render(BsonValue id) {
    if (id == null) {
      throw new DocumentRenderException("_id is missing (null reference); a BSON null _id is BsonNull");
    }
    // Fast paths for the usual _id types; all other values go through the byte walker.
    switch (id.getBsonType()) {
      case OBJECT_ID:
        return id.asObjectId().getValue().toHexString();
      case STRING:
        return IdKeyWriter.quote(id.asString().getValue());
      case INT32:
        return CanonicalNumber.ofLong(id.asInt32().getValue());
      case INT64:
        return CanonicalNumber.ofLong(id.asInt64().getValue());
      case DOUBLE:
        return CanonicalNumber.ofDouble(id.asDouble().getValue());
      case DECIMAL128:
        return CanonicalNumber.ofDecimal128(id.asDecimal128().getValue());
      case NULL:
        return "null";
      default:
        break;
    }
    if (id instanceof RawBsonDocument raw) {
      return renderRawDocument(raw);
    }
    RawBsonDocument wrapper = encode(new BsonDocument("_id", id));
    return renderIdOf(wrapper);
  }

  /**
   * The key text of the {@code _id} field of a raw document (a full document or a change
   * event's {@code documentKey}), read from its bytes.
   *
   * <p>Prefer this over {@link #render(BsonValue)} with a value the driver decoded: decoding a
   * string with invalid UTF-8 replaces the bad bytes with U+FFFD, which could make two
   * different {@code _id}s equal; the raw bytes keep them apart.
   *
   * @throws DocumentRenderException if the document has no {@code _id} or is corrupt
   */
  @Override
  public String renderIdOf(RawBsonDocument document) {
    Bytes bytes = bytesOf(document);
    return new IdKeyWriter(bytes.array, bytes.offset).fieldOf(bytes.offset, bytes.length, ID_NAME);
  }

  private static String renderRawDocument(RawBsonDocument document) {
    Bytes bytes = bytesOf(document);
    return new IdKeyWriter(bytes.array, bytes.offset).document(bytes.offset, bytes.length);
  }

  private static RawBsonDocument encode(BsonDocument document) {
    return new RawBsonDocument(document, new BsonDocumentCodec());
  }

  private record Bytes(byte[] array, int offset, int length) {}

  private static Bytes bytesOf(RawBsonDocument document) {
    ByteBuf buffer = document.getByteBuffer();
    try {
      if (buffer.isBackedByArray()) {
        return new Bytes(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
      }
      byte[] copy = new byte[buffer.remaining()];
      buffer.get(copy);
      return new Bytes(copy, 0, copy.length);
    } finally {
      buffer.release();
    }
  }
}
