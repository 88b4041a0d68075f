package io.mongocdc.source.scripted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.devtools.generator.ResumeTokens;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

class ScriptedChangeStreamTest {

  private static final Namespace NS = new Namespace("shop", "orders");

  @Test
  void aReopenedCursorReplaysEventsButNotTheIdleTimeBetweenThem() throws Exception {
    ChangeEvents events = new ChangeEvents();
    RawBsonDocument first = events.insert(NS, new BsonDocument("_id", new BsonInt32(1)));
    ResumeToken quiet = events.highWaterMark();
    RawBsonDocument second = events.insert(NS, new BsonDocument("_id", new BsonInt32(2)));
    ScriptedChangeStream stream = ScriptedChangeStream.builder().event(first).idle(quiet).event(second).build();

    ChangeStreamCursor cursor = stream.open(StreamPosition.after(ResumeTokens.highWaterMark(
        new org.bson.BsonTimestamp(1, 1))));
    assertEquals(first, cursor.tryNext());
    assertNull(cursor.tryNext(), "the idle poll");
    assertEquals(quiet, cursor.postBatchResumeToken());
    assertEquals(second, cursor.tryNext());
    cursor.close();

    ChangeStreamCursor reopened = stream.open(StreamPosition.after(ResumeToken.ofEvent(first)));
    assertEquals(second, reopened.tryNext(), "the event after the position, without replaying the idle poll");
    assertEquals(0, stream.openCursorCount() - 1);
  }
}
