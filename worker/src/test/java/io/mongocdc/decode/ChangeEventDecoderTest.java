package io.mongocdc.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.scripted.ChangeEvents;
import java.time.Instant;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class ChangeEventDecoderTest {

  private static final Namespace NS = new Namespace("shop", "orders");
  private final ChangeEvents events = new ChangeEvents();
  private final ChangeEventDecoder decoder = new ChangeEventDecoder(
      new DriverJsonRenderer(), new DriverJsonKeyRenderer(), ns -> "dest_" + ns.collection(), ns -> false,
      ColumnProjections.NONE);

  private static ResumeToken tokenOf(RawBsonDocument event) {
    return ResumeToken.fromDocument(event.getDocument("_id"));
  }

  private DecodedEvent decode(RawBsonDocument event) {
    return decoder.decode(event, tokenOf(event));
  }

  private static BsonDocument doc(int id, String name) {
    return new BsonDocument("_id", new BsonInt32(id)).append("name", new BsonString(name));
  }

  @Test
  void insertBecomesARecordWithEveryField() {
    RawBsonDocument event = events.insert(NS, doc(7, "Zoë"));

    ChangeRecord record = assertInstanceOf(ChangeRecord.class, decode(event));

    assertEquals(Operation.INSERT, record.operation());
    assertEquals(NS, record.source());
    assertEquals("dest_orders", record.table());
    assertEquals("7", record.key());
    assertEquals("{\"_id\": 7, \"name\": \"Zoë\"}", record.document());
    assertEquals(tokenOf(event), record.position());
    assertEquals(Instant.ofEpochMilli(event.getDateTime("wallTime").getValue()), record.commitTime());
    assertEquals(event.getByteBuffer().remaining(), record.sourceBytes());
  }

  @Test
  void updateReplaceAndDeleteKeepTheirOperation() {
    ChangeRecord update = (ChangeRecord) decode(events.update(NS, new BsonInt32(1), doc(1, "b"), null));
    ChangeRecord replace = (ChangeRecord) decode(events.replace(NS, doc(1, "c")));
    ChangeRecord delete = (ChangeRecord) decode(events.delete(NS, new BsonInt32(1)));

    assertEquals(Operation.UPDATE, update.operation());
    assertEquals("{\"_id\": 1, \"name\": \"b\"}", update.document());
    assertEquals(Operation.REPLACE, replace.operation());
    assertEquals(Operation.DELETE, delete.operation());
    assertNull(delete.document());
    assertEquals("1", delete.key());
  }

  @Test
  void anUpdateWithoutPostImageHasNoDocument() {
    ChangeRecord update = (ChangeRecord) decode(events.update(NS, new BsonInt32(1), null, null));
    assertNull(update.document());
  }

  @Test
  void aHistoryTableGetsPreImagesAndUpdateDescriptions() {
    ChangeEventDecoder keeping = new ChangeEventDecoder(
        new DriverJsonRenderer(), new DriverJsonKeyRenderer(), ns -> "dest_" + ns.collection(), NS::equals,
        ColumnProjections.NONE);
    BsonArray truncated = new BsonArray(List.of(
        new BsonDocument("field", new BsonString("tags")).append("newSize", new BsonInt32(1))));
    RawBsonDocument update = ChangeEvents.withPreImage(
        events.update(NS, new BsonInt32(1), doc(1, "b"), new BsonDocument("name", new BsonString("b")),
            List.of("note"), truncated),
        doc(1, "a"));
    RawBsonDocument delete = ChangeEvents.withPreImage(events.delete(NS, new BsonInt32(1)), doc(1, "b"));
    RawBsonDocument deleteWithoutPreImage = ChangeEvents.withPreImage(events.delete(NS, new BsonInt32(2)), null);

    ChangeRecord updated = (ChangeRecord) keeping.decode(update, tokenOf(update));
    ChangeRecord deleted = (ChangeRecord) keeping.decode(delete, tokenOf(delete));
    ChangeRecord deletedUnknown = (ChangeRecord) keeping.decode(deleteWithoutPreImage, tokenOf(deleteWithoutPreImage));

    assertEquals("{\"_id\": 1, \"name\": \"a\"}", updated.documentBefore());
    assertEquals("{\"_id\": 1, \"name\": \"b\"}", updated.document());
    assertEquals("{\"updatedFields\": {\"name\": \"b\"}, \"removedFields\": [\"note\"],"
        + " \"truncatedArrays\": [{\"field\": \"tags\", \"newSize\": 1}]}", updated.updateDescription());
    assertEquals("{\"_id\": 1, \"name\": \"b\"}", deleted.documentBefore());
    assertNull(deleted.updateDescription());
    assertNull(deletedUnknown.documentBefore(), "a null pre-image (whenAvailable) is no pre-image");
  }

  @Test
  void aTableWithoutHistoryLeavesPreImagesAndUpdateDescriptionsUnread() {
    RawBsonDocument update = ChangeEvents.withPreImage(
        events.update(NS, new BsonInt32(1), doc(1, "b"), new BsonDocument("name", new BsonString("b"))),
        doc(1, "a"));

    ChangeRecord record = (ChangeRecord) decode(update);

    assertNull(record.documentBefore());
    assertNull(record.updateDescription());
    assertEquals("{\"_id\": 1, \"name\": \"b\"}", record.document());
  }

  @Test
  void commitTimeFallsBackToClusterTimeWithoutWallTime() {
    BsonDocument event = events.insert(NS, doc(1, "a")).decode(new BsonDocumentCodec());
    event.remove("wallTime");
    RawBsonDocument raw = new RawBsonDocument(event, new BsonDocumentCodec());

    ChangeRecord record = (ChangeRecord) decode(raw);

    assertEquals(Instant.ofEpochSecond(event.getTimestamp("clusterTime").getTime()), record.commitTime());
  }

  @Test
  void anEventWithoutDocumentKeyIdIsAnErrorNamingItsPosition() {
    BsonDocument event = events.insert(NS, doc(1, "a")).decode(new BsonDocumentCodec());
    event.put("documentKey", new BsonDocument("shard", new BsonInt32(1)));
    RawBsonDocument raw = new RawBsonDocument(event, new BsonDocumentCodec());

    ChangeEventDecodeException error = assertThrows(ChangeEventDecodeException.class, () -> decode(raw));

    assertEquals(tokenOf(raw), error.position());
    assertEquals("cannot decode change event at " + tokenOf(raw) + ": insert on shop.orders has no documentKey._id",
        error.getMessage());
  }

  @Test
  void controlEventsAreNeverRecords() {
    ControlEvent rename = assertInstanceOf(ControlEvent.class,
        decode(events.rename(NS, new Namespace("shop", "old_orders"))));
    assertEquals(ControlEvent.Type.RENAME, rename.type());
    assertEquals(new Namespace("shop", "old_orders"), rename.renamedTo());

    ControlEvent invalidate = assertInstanceOf(ControlEvent.class, decode(events.invalidate()));
    assertNull(invalidate.namespace());
    ControlEvent dropDatabase = assertInstanceOf(ControlEvent.class, decode(events.dropDatabase("shop")));
    assertEquals(new Namespace("shop", null), dropDatabase.namespace());
    assertTrue(dropDatabase.describe().startsWith("dropDatabase of shop at "), dropDatabase.describe());
  }

  @Test
  void anUnknownOperationTypeIsAnErrorNamingTypePositionNamespaceAndTheWayOut() {
    RawBsonDocument event = events.ofType("createIndexes", NS);
    ChangeEventDecodeException error = assertThrows(ChangeEventDecodeException.class, () -> decode(event));
    assertEquals("cannot decode change event at " + tokenOf(event) + ": unknown operationType 'createIndexes' on"
        + " shop.orders: set unknownEventPolicy to SKIP to pass over events of types the mirror does not know, or"
        + " exclude this one (--exclude-operations createIndexes)", error.getMessage());
  }

  @Test
  void anUnknownOperationTypeTheMirrorSkipsIsPassedOverAtItsPosition() {
    ChangeEventDecoder skipping = decoder.skippingTypes(type -> type.equals("futureOp"));
    RawBsonDocument future = events.ofType("futureOp", NS);
    RawBsonDocument other = events.ofType("createIndexes", NS);

    assertEquals(new SkippedEvent(tokenOf(future), "futureOp"), skipping.decode(future, tokenOf(future)));
    assertThrows(ChangeEventDecodeException.class, () -> skipping.decode(other, tokenOf(other)));
    // Known types are decoded whatever the predicate says: it governs unknown types only.
    ChangeEventDecoder skippingAll = decoder.skippingTypes(type -> true);
    RawBsonDocument insert = events.insert(NS, doc(1, "a"));
    assertInstanceOf(ChangeRecord.class, skippingAll.decode(insert, tokenOf(insert)));
    RawBsonDocument drop = events.drop(NS);
    assertInstanceOf(ControlEvent.class, skippingAll.decode(drop, tokenOf(drop)));
  }

  @Test
  void anUnknownOperationTypeIsAnErrorEvenWhenItLooksLikeADataChange() {
    // A type a future server might send, shaped like an insert: documentKey and fullDocument.
    BsonDocument shaped = events.insert(NS, new BsonDocument("_id", new BsonInt32(7)).append("x", new BsonInt32(1)))
        .decode(new BsonDocumentCodec());
    shaped.put("operationType", new BsonString("merge"));
    RawBsonDocument event = new RawBsonDocument(shaped, new BsonDocumentCodec());

    ChangeEventDecodeException error = assertThrows(ChangeEventDecodeException.class, () -> decode(event));
    assertTrue(error.getMessage().contains("unknown operationType 'merge' on shop.orders"), error.getMessage());
  }

  @Test
  void aRenderFailureNamesThePositionAndTheReason() {
    ChangeEventDecoder failing = new ChangeEventDecoder(
        document -> {
          throw new DocumentRenderException("field 'x' holds an unsupported value");
        },
        new DriverJsonKeyRenderer(), DestinationTableResolver.sourceName(), ns -> false, ColumnProjections.NONE);
    RawBsonDocument event = events.insert(NS, doc(1, "a"));

    ChangeEventDecodeException error =
        assertThrows(ChangeEventDecodeException.class, () -> failing.decode(event, tokenOf(event)));

    assertEquals("cannot decode change event at " + tokenOf(event)
        + ": insert on shop.orders: field 'x' holds an unsupported value", error.getMessage());
  }
}
