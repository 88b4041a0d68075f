package io.mongocdc.source.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.mongodb.ServerAddress;
import com.mongodb.ServerCursor;
import com.mongodb.client.MongoChangeStreamCursor;
import io.mongocdc.source.ResumeToken;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class SplitEventAssemblerTest {

  private static RawBsonDocument raw(String json) {
    return new RawBsonDocument(BsonDocument.parse(json), new BsonDocumentCodec());
  }

  private static final RawBsonDocument FRAGMENT_1 = raw("{_id: {_data: '82000000010000000104'},"
      + " splitEvent: {fragment: 1, of: 2}, operationType: 'update', ns: {db: 'shop', coll: 'big'},"
      + " fullDocument: {_id: 1, blob: 'aaaa'}}");
  private static final RawBsonDocument FRAGMENT_2 = raw("{_id: {_data: '82000000010000000106'},"
      + " splitEvent: {fragment: 2, of: 2}, documentKey: {_id: 1}, updateDescription: {updatedFields: {blob: 'aaaa'}}}");

  @Test
  void joinsFragmentsIntoOneEventWithTheLastFragmentsToken() {
    SplitEventAssembler assembler = new SplitEventAssembler();

    assertNull(assembler.offer(FRAGMENT_1));
    RawBsonDocument whole = assembler.offer(FRAGMENT_2);

    assertEquals(BsonDocument.parse("{_id: {_data: '82000000010000000106'}, operationType: 'update',"
        + " ns: {db: 'shop', coll: 'big'}, fullDocument: {_id: 1, blob: 'aaaa'}, documentKey: {_id: 1},"
        + " updateDescription: {updatedFields: {blob: 'aaaa'}}}"), whole);
    assertEquals("_id", whole.getFirstKey());
  }

  @Test
  void passesUnsplitEventsThrough() {
    RawBsonDocument event = raw("{_id: {_data: '8200000001000000010A'}, operationType: 'insert'}");
    assertSame(event, new SplitEventAssembler().offer(event));
  }

  @Test
  void refusesFragmentsOutOfOrder() {
    SplitEventAssembler assembler = new SplitEventAssembler();
    assertEquals("split event fragment 2 of 2 arrived after 0 fragment(s)",
        assertThrows(IllegalStateException.class, () -> assembler.offer(FRAGMENT_2)).getMessage());
  }

  @Test
  void noPostBatchTokenWhileAnEventIsHalfRead() throws Exception {
    FakeCursor cursor = new FakeCursor(FRAGMENT_1, null, FRAGMENT_2);
    MongoChangeStreamCursorAdapter adapter = new MongoChangeStreamCursorAdapter(cursor, true);

    assertNull(adapter.tryNext(), "the batch ended after the first fragment");
    assertNull(adapter.postBatchResumeToken(), "resuming after a fragment would lose the event's start");
    RawBsonDocument whole = adapter.tryNext();
    assertEquals("82000000010000000106", whole.getDocument("_id").getString("_data").getValue());
    assertEquals(ResumeToken.of("82000000010000000106"), adapter.postBatchResumeToken());
  }

  /** The driver cursor's contract, played from a list: null is an empty getMore. */
  private static final class FakeCursor implements MongoChangeStreamCursor<RawBsonDocument> {
    private final Deque<RawBsonDocument> script = new ArrayDeque<>();
    private final Deque<Boolean> emptyPolls = new ArrayDeque<>();
    private BsonDocument resumeToken;

    FakeCursor(RawBsonDocument... events) {
      for (RawBsonDocument event : events) {
        emptyPolls.add(event == null);
        if (event != null) {
          script.add(event);
        }
      }
    }

    @Override
    public RawBsonDocument tryNext() {
      Boolean empty = emptyPolls.poll();
      if (empty == null || empty) {
        return null;
      }
      RawBsonDocument event = script.poll();
      resumeToken = event.getDocument("_id");
      return event;
    }

    @Override
    public BsonDocument getResumeToken() {
      return resumeToken;
    }

    @Override
    public void close() {}

    @Override
    public boolean hasNext() {
      return !script.isEmpty();
    }

    @Override
    public RawBsonDocument next() {
      return script.poll();
    }

    @Override
    public int available() {
      return script.size();
    }

    @Override
    public ServerCursor getServerCursor() {
      return null;
    }

    @Override
    public ServerAddress getServerAddress() {
      return null;
    }

    @Override
    public void forEachRemaining(Consumer<? super RawBsonDocument> action) {
      List.copyOf(script).forEach(action);
    }
  }
}
