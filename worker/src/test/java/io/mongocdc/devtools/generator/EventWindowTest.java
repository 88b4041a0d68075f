package io.mongocdc.devtools.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

class EventWindowTest {

  private static final Namespace NS = new Namespace("demo", "products");

  /** 3 000 events, every third pair in one transaction (one cluster time), into a window of 1 500. */
  private static List<RawBsonDocument> fill(EventWindow window) {
    ChangeEvents events = new ChangeEvents();
    List<RawBsonDocument> all = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      if (i % 6 == 0) {
        events.beginTransaction(i);
      }
      RawBsonDocument event = events.delete(NS, new BsonInt32(i));
      if (i % 6 == 1) {
        events.commitTransaction();
      }
      all.add(event);
      window.add(event, event.getTimestamp("clusterTime").getValue());
    }
    return all;
  }

  @Test
  void reopensRightAfterEveryRetainedEvent() {
    EventWindow window = new EventWindow(1_500);
    List<RawBsonDocument> all = fill(window);
    assertEquals(3_000, window.end());
    for (int i = 1_499; i < 3_000; i++) {
      long first = window.firstAfter(StreamPosition.after(ResumeToken.ofEvent(all.get(i))));
      assertEquals(i + 1, first);
      if (first < window.end()) {
        assertSame(all.get(i + 1), window.get(first));
      }
    }
    assertEquals(ResumeToken.ofEvent(all.get(2_999)), window.lastToken());
  }

  @Test
  void findsTheFirstEventAtAnOperationTimeAndAfterAPostBatchToken() {
    EventWindow window = new EventWindow(1_500);
    List<RawBsonDocument> all = fill(window);
    for (int i = 1_500; i < 3_000; i++) {
      BsonTimestamp time = all.get(i).getTimestamp("clusterTime");
      int first = i;
      while (all.get(first - 1).getTimestamp("clusterTime").equals(time)) {
        first--;
      }
      assertEquals(first, window.firstAfter(StreamPosition.atOperationTime(time)));
      // A post-batch token at a cluster time sorts before the events at that time.
      assertEquals(first, window.firstAfter(StreamPosition.after(ResumeTokens.highWaterMark(time))), "#" + i);
    }
  }

  @Test
  void positionsBeforeTheWindowAreHistoryLost() {
    EventWindow window = new EventWindow(1_500);
    List<RawBsonDocument> all = fill(window);
    ChangeStreamHistoryLostException lost = assertThrows(ChangeStreamHistoryLostException.class,
        () -> window.firstAfter(StreamPosition.after(ResumeToken.ofEvent(all.get(1_498)))));
    assertEquals(286, lost.serverErrorCode());
    assertThrows(ChangeStreamHistoryLostException.class,
        () -> window.firstAfter(StreamPosition.atOperationTime(new BsonTimestamp(0, 0))));
    assertThrows(ChangeStreamHistoryLostException.class, () -> window.get(1_499));
    assertSame(all.get(1_500), window.get(1_500));
  }
}
