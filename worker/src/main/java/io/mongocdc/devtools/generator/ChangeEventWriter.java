package io.mongocdc.devtools.generator;

import static io.mongocdc.devtools.generator.BsonBytes.name;
import static io.mongocdc.devtools.generator.BsonBytes.utf8;

import java.nio.charset.StandardCharsets;
import org.bson.RawBsonDocument;

/**
 * Writes generated change events as raw BSON, field for field what {@code ChangeEvents} makes
 * (the shape of a MongoDB 6.0+ change stream event): {@code _id} with the resume token,
 * {@code operationType}, {@code clusterTime}, {@code wallTime}, {@code fullDocument}, {@code ns},
 * {@code documentKey}, {@code updateDescription}, and {@code lsid}/{@code txnNumber} inside a
 * transaction. One event at a time: {@link #start}, then the full document if the event has one
 * into {@link #fullDocument()}, then {@link #finish} or {@link #finishUpdate}.
 */
final class ChangeEventWriter {

  static final byte[] INSERT = utf8("insert");
  static final byte[] UPDATE = utf8("update");
  static final byte[] REPLACE = utf8("replace");
  static final byte[] DELETE = utf8("delete");

  private static final byte[] ID = name("_id");
  private static final byte[] DATA = name("_data");
  private static final byte[] OPERATION_TYPE = name("operationType");
  private static final byte[] CLUSTER_TIME = name("clusterTime");
  private static final byte[] WALL_TIME = name("wallTime");
  private static final byte[] FULL_DOCUMENT = name("fullDocument");
  private static final byte[] NS = name("ns");
  private static final byte[] DOCUMENT_KEY = name("documentKey");
  private static final byte[] UPDATE_DESCRIPTION = name("updateDescription");
  private static final byte[] UPDATED_FIELDS = name("updatedFields");
  private static final byte[] REMOVED_FIELDS = name("removedFields");
  private static final byte[] TRUNCATED_ARRAYS = name("truncatedArrays");
  private static final byte[] VERSION = name("version");
  private static final byte[] UPDATED_AT = name("updatedAt");
  private static final byte[] LSID = name("lsid");
  private static final byte[] SESSION_ID = name("id");
  private static final byte[] TXN_NUMBER = name("txnNumber");

  // The resume token's KeyString (see ResumeTokens.event), around the parts that vary.
  private static final byte[] TIMESTAMP_TYPE = ascii("82");
  private static final byte[] VERSION_AND_TYPE = ascii("2B042C0100");
  private static final byte[] NOT_FROM_INVALIDATE_AND_UUID = ascii("6E5A1004");
  private static final byte[] OBJECT = ascii("46");
  private static final byte[] END = ascii("0004");

  private final BsonBytes out = new BsonBytes();
  private final EventSlabs slabs;
  private int event;

  ChangeEventWriter(EventSlabs slabs) {
    this.slabs = slabs;
  }

  /** Starts an event: its token, operation type and times. */
  void start(byte[] operationType, CollectionFormat collection, int id, long clusterTime, long wallMillis,
      int txnOpIndex) {
    slabs.startEvent(out);
    event = out.startDocument();
    int tokenDocument = out.startDocument(ID);
    out.header(0x02, DATA);
    int token = out.position();
    out.int32Value(0);
    out.raw(TIMESTAMP_TYPE, 0, TIMESTAMP_TYPE.length);
    out.hex(clusterTime, 16);
    out.raw(VERSION_AND_TYPE, 0, VERSION_AND_TYPE.length);
    writeOpIndex(txnOpIndex);
    out.raw(NOT_FROM_INVALIDATE_AND_UUID, 0, NOT_FROM_INVALIDATE_AND_UUID.length);
    out.raw(collection.uuidHex(), 0, collection.uuidHex().length);
    out.raw(OBJECT, 0, OBJECT.length);
    collection.writeTokenKey(out, id);
    out.raw(END, 0, END.length);
    out.byteValue(0);
    out.patchInt32(token, out.position() - token - 4);
    out.endDocument(tokenDocument);
    out.string(OPERATION_TYPE, operationType);
    out.timestamp(CLUSTER_TIME, clusterTime);
    out.dateTime(WALL_TIME, wallMillis);
  }

  /** Where the caller writes the event's full document, right after this call. */
  BsonBytes fullDocument() {
    out.header(0x03, FULL_DOCUMENT);
    return out;
  }

  /** Ends an insert, replace or delete. */
  RawBsonDocument finish(CollectionFormat collection, int id, Transaction transaction) {
    writeKeys(collection, id);
    return end(transaction);
  }

  /** Ends an update that set {@code version} and {@code updatedAt}. */
  RawBsonDocument finishUpdate(CollectionFormat collection, int id, int version, long updatedAt, Transaction transaction) {
    writeKeys(collection, id);
    int description = out.startDocument(UPDATE_DESCRIPTION);
    int fields = out.startDocument(UPDATED_FIELDS);
    out.int32(VERSION, version);
    out.dateTime(UPDATED_AT, updatedAt);
    out.endDocument(fields);
    out.endDocument(out.startArray(REMOVED_FIELDS));
    out.endDocument(out.startArray(TRUNCATED_ARRAYS));
    out.endDocument(description);
    return end(transaction);
  }

  private void writeKeys(CollectionFormat collection, int id) {
    collection.writeNamespace(out, NS);
    int key = out.startDocument(DOCUMENT_KEY);
    collection.writeKey(out, ID, id);
    out.endDocument(key);
  }

  private RawBsonDocument end(Transaction transaction) {
    if (transaction != null) {
      int lsid = out.startDocument(LSID);
      out.string(SESSION_ID, transaction.sessionId);
      out.endDocument(lsid);
      out.int64(TXN_NUMBER, transaction.number);
    }
    out.endDocument(event);
    return slabs.finishEvent(out);
  }

  /** KeyString small non-negative integers, as {@code ResumeTokens} writes them. */
  private void writeOpIndex(int value) {
    if (value < 0 || value >= 32768) {
      throw new IllegalArgumentException("transaction operation index out of range: " + value);
    }
    if (value == 0) {
      out.byteValue('2');
      out.byteValue('9');
    } else if (value < 128) {
      out.byteValue('2');
      out.byteValue('B');
      out.hex(value << 1, 2);
    } else {
      out.byteValue('2');
      out.byteValue('C');
      out.hex(value << 1, 4);
    }
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
