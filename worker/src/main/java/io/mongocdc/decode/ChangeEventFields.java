package io.mongocdc.decode;

import org.bson.BsonBinaryReader;
import org.bson.BsonTimestamp;
import org.bson.BsonType;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;
import org.bson.io.ByteBufferBsonInput;

/**
 * The top-level fields of a change event the decoder needs, read in one pass over the raw
 * bytes. Sub-documents ({@code documentKey}, {@code fullDocument}, {@code fullDocumentBeforeChange},
 * {@code updateDescription}) are not parsed: they are
 * returned as raw views sharing the event's bytes, for the renderers to walk once.
 *
 * <p>Reading each field with {@code RawBsonDocument.get} would rescan the event once per field.
 */
final class ChangeEventFields {

  String operationType;
  Namespace ns;
  Namespace to;
  RawBsonDocument documentKey;
  RawBsonDocument fullDocument;
  RawBsonDocument fullDocumentBeforeChange;
  RawBsonDocument updateDescription;
  Long wallTimeMillis;
  BsonTimestamp clusterTime;

  static ChangeEventFields read(RawBsonDocument event) {
    ByteBuf buffer = event.getByteBuffer();
    if (!buffer.isBackedByArray()) {
      // RawBsonDocuments wrap a byte array; copy anything else once so views can share bytes.
      byte[] copy = new byte[buffer.remaining()];
      buffer.get(copy);
      return read(new RawBsonDocument(copy));
    }
    ChangeEventFields fields = new ChangeEventFields();
    byte[] array = buffer.array();
    int arrayOffset = buffer.arrayOffset();
    ByteBufferBsonInput input = new ByteBufferBsonInput(buffer);
    try (BsonBinaryReader reader = new BsonBinaryReader(input)) {
      reader.readStartDocument();
      while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
        String name = reader.readName();
        BsonType type = reader.getCurrentBsonType();
        switch (name) {
          case "operationType" -> {
            if (type == BsonType.STRING) {
              fields.operationType = reader.readString();
            } else {
              reader.skipValue();
            }
          }
          case "ns", "to" -> {
            Namespace namespace = type == BsonType.DOCUMENT ? readNamespace(reader) : skip(reader);
            if (name.equals("ns")) {
              fields.ns = namespace;
            } else {
              fields.to = namespace;
            }
          }
          case "documentKey", "fullDocument", "fullDocumentBeforeChange", "updateDescription" -> {
            // null (no pre- or post-image available) reads as absent
            RawBsonDocument view = type == BsonType.DOCUMENT ? slice(array, arrayOffset + input.getPosition()) : null;
            reader.skipValue();
            switch (name) {
              case "documentKey" -> fields.documentKey = view;
              case "fullDocument" -> fields.fullDocument = view;
              case "fullDocumentBeforeChange" -> fields.fullDocumentBeforeChange = view;
              default -> fields.updateDescription = view;
            }
          }
          case "wallTime" -> {
            if (type == BsonType.DATE_TIME) {
              fields.wallTimeMillis = reader.readDateTime();
            } else {
              reader.skipValue();
            }
          }
          case "clusterTime" -> {
            if (type == BsonType.TIMESTAMP) {
              fields.clusterTime = reader.readTimestamp();
            } else {
              reader.skipValue();
            }
          }
          default -> reader.skipValue();
        }
      }
    }
    return fields;
  }

  private static RawBsonDocument slice(byte[] array, int start) {
    return new RawBsonDocument(array, start, BsonReads.readInt(array, start));
  }

  private static Namespace skip(BsonBinaryReader reader) {
    reader.skipValue();
    return null;
  }

  private static Namespace readNamespace(BsonBinaryReader reader) {
    String db = null;
    String coll = null;
    reader.readStartDocument();
    while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
      String field = reader.readName();
      if (field.equals("db") && reader.getCurrentBsonType() == BsonType.STRING) {
        db = reader.readString();
      } else if (field.equals("coll") && reader.getCurrentBsonType() == BsonType.STRING) {
        coll = reader.readString();
      } else {
        reader.skipValue();
      }
    }
    reader.readEndDocument();
    return db == null ? null : new Namespace(db, coll);
  }
}
