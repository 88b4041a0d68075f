package io.mongocdc.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import java.time.Instant;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class SnapshotPositionTest {

  @Test
  void anOperationTimeStartSortsBeforeEveryEventAtOrAfterItAndAfterEveryEventBefore() {
    ChangeEvents events = new ChangeEvents(1_700_000_000);
    Namespace ns = new Namespace("shop", "orders");
    ResumeToken before = ResumeToken.ofEvent(events.insert(ns, new BsonDocument("_id", new BsonInt32(1))));
    BsonTimestamp startTime = events.currentClusterTime();
    ResumeToken atStart = ResumeToken.ofEvent(events.insert(ns, new BsonDocument("_id", new BsonInt32(2))));

    BsonTimestamp time = ResumeToken.ofEvent(events.insert(ns, new BsonDocument("_id", new BsonInt32(3)))).clusterTime();
    ResumeToken start = SnapshotPosition.tokenOf(StreamPosition.atOperationTime(time));

    assertEquals(time, start.clusterTime());
    assertTrue(start.isAfter(before) && start.isAfter(atStart), "events before the start sort before it");
    ResumeToken sameTime = ResumeToken.ofEvent(events.insert(ns, new BsonDocument("_id", new BsonInt32(4))));
    assertTrue(sameTime.isAfter(start), "later events sort after the start");
    assertTrue(startTime.compareTo(time) <= 0);
  }

  @Test
  void aTokenStartIsThatTokenAndTheCommitTimeIsTheStartsClusterTime() {
    StreamPosition start = StreamPosition.after(ResumeToken.of("8265A1B2C3000000012B0429"));
    assertEquals(ResumeToken.of("8265A1B2C3000000012B0429"), SnapshotPosition.tokenOf(start));
    assertEquals(Instant.ofEpochSecond(0x65A1B2C3L), SnapshotPosition.commitTimeOf(start));
  }
}
