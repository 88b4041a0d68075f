package io.mongocdc.source.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class ChangeStreamPipelineTest {

  @Test
  void matchesTheWatchedCollectionsAndEveryStreamChangingEvent() {
    MongoSourceSettings settings = MongoSourceSettings.of("shop", List.of("shop.orders", "shop.users"));

    List<BsonDocument> pipeline = ChangeStreamPipeline.build(settings);

    assertEquals(List.of(BsonDocument.parse("""
        {"$match": {"$or": [
          {"ns.db": "shop", "ns.coll": {"$in": ["orders", "users"]}},
          {"operationType": "rename", "to.db": "shop", "to.coll": {"$in": ["orders", "users"]}},
          {"operationType": "dropDatabase", "ns.db": "shop"},
          {"operationType": "invalidate"}]}}""")), pipeline);
  }

  @Test
  void excludesOperationsOnlyForDataEventsAndSplitsLargeEventsOnRequest() {
    MongoSourceSettings settings = new MongoSourceSettings(null, List.of("a.x", "b.y"),
        new LinkedHashSet<>(List.of("delete", "createIndexes")), 0, Duration.ofSeconds(1), true, PreImageMode.OFF);

    List<BsonDocument> pipeline = ChangeStreamPipeline.build(settings);

    assertEquals(List.of(BsonDocument.parse("""
        {"$match": {"$or": [
          {"ns.db": "a", "ns.coll": {"$in": ["x"]}, "operationType": {"$nin": ["delete", "createIndexes"]}},
          {"operationType": "rename", "to.db": "a", "to.coll": {"$in": ["x"]}},
          {"operationType": "dropDatabase", "ns.db": "a"},
          {"ns.db": "b", "ns.coll": {"$in": ["y"]}, "operationType": {"$nin": ["delete", "createIndexes"]}},
          {"operationType": "rename", "to.db": "b", "to.coll": {"$in": ["y"]}},
          {"operationType": "dropDatabase", "ns.db": "b"},
          {"operationType": "invalidate"}]}}"""),
        BsonDocument.parse("{\"$changeStreamSplitLargeEvent\": {}}")), pipeline);
  }

  @Test
  void settingsThatCannotWorkAreRejected() {
    assertEquals("collections must name at least one db.collection",
        assertThrows(IllegalArgumentException.class, () -> MongoSourceSettings.of("shop", List.of())).getMessage());
    assertEquals("collection 'orders' must be written as db.collection",
        assertThrows(IllegalArgumentException.class, () -> MongoSourceSettings.of("shop", List.of("orders"))).getMessage());
    assertEquals("collection 'crm.users' is not in the watched database 'shop'",
        assertThrows(IllegalArgumentException.class,
            () -> MongoSourceSettings.of("shop", List.of("crm.users"))).getMessage());
    assertEquals("maxAwaitTime must be a positive duration, got PT0S",
        assertThrows(IllegalArgumentException.class, () -> new MongoSourceSettings("shop", List.of("shop.a"),
            Set.of(), 0, Duration.ZERO, false, PreImageMode.OFF)).getMessage());
    assertEquals("cursorBatchSize must be at least 0, got -1",
        assertThrows(IllegalArgumentException.class, () -> new MongoSourceSettings("shop", List.of("shop.a"),
            Set.of(), -1, Duration.ofSeconds(1), false, PreImageMode.OFF))
            .getMessage());
  }
}
