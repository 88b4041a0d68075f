package io.mongocdc.source.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.IdTypeBracket;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

/** The query a snapshot partition sends: the range and the mirror's filter must both hold. */
class MongoSnapshotQueryTest {

  private final IdRange range = IdRange.of(IdTypeBracket.NUMBER, new BsonInt32(5), null);

  @Test
  void anEmptyFilterLeavesTheRangeAlone() {
    assertEquals(range.toFilter(), MongoSnapshotSource.query(range, new BsonDocument()));
    assertEquals(new BsonDocument(), MongoSnapshotSource.query(IdRange.whole(), new BsonDocument()));
  }

  @Test
  void aFilterOnIdIsAndedNotMerged() {
    BsonDocument filter = BsonDocument.parse("{_id: {$lt: 100}, status: 'open'}");
    assertEquals(BsonDocument.parse("{$and: [{_id: {$type: ['double', 'int', 'long', 'decimal'], $gte: 5}},"
        + " {_id: {$lt: 100}, status: 'open'}]}"), MongoSnapshotSource.query(range, filter));
    assertEquals(filter, MongoSnapshotSource.query(IdRange.whole(), filter));
  }

  @Test
  void aReadAfterAnIdAddsItsLowerBoundBesideTheRangeAndTheFilter() {
    BsonDocument filter = BsonDocument.parse("{status: 'open'}");
    assertEquals(BsonDocument.parse("{$and: [{_id: {$type: ['double', 'int', 'long', 'decimal'], $gte: 5}},"
        + " {_id: {$gt: 42}}, {status: 'open'}]}"), MongoSnapshotSource.query(range, new BsonInt32(42), filter));
    assertEquals(BsonDocument.parse("{_id: {$gt: 42}}"),
        MongoSnapshotSource.query(IdRange.whole(), new BsonInt32(42), new BsonDocument()));
  }

  @Test
  void partitionsAreReadWithTheSimpleCollation() {
    assertEquals("simple", MongoSnapshotSource.SIMPLE.getLocale());
  }
}
