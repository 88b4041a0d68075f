package io.mongocdc.devtools.generator;

import static io.mongocdc.devtools.generator.SampleDocumentBytesTest.encode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.scripted.ChangeEvents;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Random;
import java.util.UUID;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

/** The generator's events are byte for byte what {@link ChangeEvents} makes of the same operations. */
class ChangeEventWriterTest {

  private static final Clock FIXED = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
  private static final int SECONDS = (int) FIXED.instant().getEpochSecond();
  private static final Namespace ORDERS = new Namespace("demo", "orders");
  private static final Namespace PRODUCTS = new Namespace("demo", "products");

  private final ChangeEvents reference = new ChangeEvents(FIXED);
  private final ChangeEventWriter writer = new ChangeEventWriter(new EventSlabs());
  private final CollectionFormat orders = new CollectionFormat(ORDERS, 0);
  private final CollectionFormat products = new CollectionFormat(PRODUCTS, 2);

  private static byte[] bytes(RawBsonDocument event) {
    byte[] bytes = new byte[event.getByteBuffer().remaining()];
    event.getByteBuffer().get(bytes);
    return bytes;
  }

  private static long clusterTime(int increment) {
    return new BsonTimestamp(SECONDS, increment).getValue();
  }

  @Test
  void insertsUpdatesReplacesAndDeletesAreTheScriptedEvents() {
    BsonDocument order = SampleDocuments.medium(41);
    order.put("_id", new BsonString("orders-12"));
    writer.start(ChangeEventWriter.INSERT, orders, 12, clusterTime(1), FIXED.millis(), 0);
    SampleDocumentBytes.medium(writer.fullDocument(), orders, 12, 41);
    assertArrayEquals(bytes(reference.insert(ORDERS, order)), bytes(writer.finish(orders, 12, null)));

    BsonDocument changed = new BsonDocument("version", new BsonInt32(77)).append("updatedAt", new BsonDateTime(5L));
    BsonDocument post = order.clone();
    post.putAll(changed);
    writer.start(ChangeEventWriter.UPDATE, orders, 12, clusterTime(2), FIXED.millis(), 0);
    // The model writes key 12's document with content 12: the order as SampleDocuments makes number 12.
    post = SampleDocuments.medium(12);
    post.put("_id", new BsonString("orders-12"));
    post.putAll(changed);
    CollectionModel model = new CollectionModel(orders, 100);
    model.prefill(13);
    byte[] updated = model.update(12, 77, 5L);
    writer.fullDocument().raw(updated, 0, BsonBytes.int32At(updated, 0));
    assertArrayEquals(bytes(reference.update(ORDERS, new BsonString("orders-12"), post, changed)),
        bytes(writer.finishUpdate(orders, 12, 77, 5L, null)));

    BsonDocument product = SampleDocuments.large(3).append("_id", new BsonInt32(2_000_000_000));
    writer.start(ChangeEventWriter.REPLACE, products, 2_000_000_000, clusterTime(3), FIXED.millis(), 0);
    SampleDocumentBytes.large(writer.fullDocument(), products, 2_000_000_000, 3);
    assertArrayEquals(bytes(reference.replace(PRODUCTS, product)), bytes(writer.finish(products, 2_000_000_000, null)));

    writer.start(ChangeEventWriter.DELETE, products, 0, clusterTime(4), FIXED.millis(), 0);
    assertArrayEquals(bytes(reference.delete(PRODUCTS, new BsonInt32(0))), bytes(writer.finish(products, 0, null)));
  }

  @Test
  void transactionEventsCarryTheirOperationIndexAndSession() {
    UUID session = new UUID(new Random(1).nextLong(), 42);
    Transaction transaction = new Transaction(9, session);
    reference.beginTransaction(9);
    for (int op = 0; op < 200; op++) {
      BsonValue key = new BsonInt32(op);
      RawBsonDocument expected = reference.delete(PRODUCTS, key);
      int opIndex = transaction.nextOpIndex();
      writer.start(ChangeEventWriter.DELETE, products, op, clusterTime(1), FIXED.millis(), opIndex);
      BsonDocument actual = writer.finish(products, op, transaction).decode(new BsonDocumentCodec());

      assertEquals(ResumeTokens.event(new BsonTimestamp(SECONDS, 1), opIndex,
          UUID.nameUUIDFromBytes(PRODUCTS.fullName().getBytes(StandardCharsets.UTF_8)), key),
          ResumeToken.fromDocument(actual.getDocument("_id")));
      assertEquals(session.toString(), actual.getDocument("lsid").getString("id").getValue());
      BsonDocument wanted = expected.decode(new BsonDocumentCodec());
      wanted.getDocument("lsid").put("id", new BsonString(session.toString()));
      assertEquals(wanted, actual);
    }
  }
}
