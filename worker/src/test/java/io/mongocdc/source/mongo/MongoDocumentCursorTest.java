package io.mongocdc.source.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoCursorNotFoundException;
import com.mongodb.ServerAddress;
import com.mongodb.ServerCursor;
import com.mongodb.client.MongoCursor;
import io.mongocdc.source.ChangeStreamException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

/**
 * Issue 33, item 4: a snapshot partition whose server cursor dies mid-read (error 43
 * CursorNotFound, 237 CursorKilled, 175 QueryPlanKilled) is read on from just after the last
 * {@code _id} it returned, and completes with every document, none twice.
 */
class MongoDocumentCursorTest {

  /** The partition's documents, _id 1..10, in _id order as the server returns them. */
  private static final List<RawBsonDocument> PARTITION = new ArrayList<>();

  static {
    for (int id = 1; id <= 10; id++) {
      PARTITION.add(new RawBsonDocument(new BsonDocument("_id", new BsonInt32(id)).append("v", new BsonInt32(id * 7)),
          new BsonDocumentCodec()));
    }
  }

  /** A server that serves the partition after an _id, and loses the cursor after {@code dieAfter} documents. */
  private static final class Server {
    final List<BsonValue> openedAfter = new ArrayList<>();
    final List<Integer> dieAfter;
    int closed;

    Server(List<Integer> dieAfter) {
      this.dieAfter = new ArrayList<>(dieAfter);
    }

    MongoCursor<RawBsonDocument> open(BsonValue after) {
      openedAfter.add(after);
      int from = after == null ? 0 : after.asInt32().getValue();
      int limit = dieAfter.isEmpty() ? Integer.MAX_VALUE : dieAfter.remove(0);
      return new FakeCursor(PARTITION.subList(from, PARTITION.size()).iterator(), limit, this);
    }
  }

  private static class FakeCursor implements MongoCursor<RawBsonDocument> {
    private final Iterator<RawBsonDocument> documents;
    private final Server server;
    private int left;

    FakeCursor(Iterator<RawBsonDocument> documents, int limit, Server server) {
      this.documents = documents;
      this.left = limit;
      this.server = server;
    }

    @Override
    public boolean hasNext() {
      if (left == 0) {
        throw new MongoCursorNotFoundException(4242L, BsonDocument.parse("{ok: 0, code: 43, errmsg: 'cursor id 4242 not found'}"),
            new ServerAddress());
      }
      return documents.hasNext();
    }

    @Override
    public RawBsonDocument next() {
      left--;
      return documents.next();
    }

    @Override
    public void close() {
      server.closed++;
    }

    @Override
    public int available() {
      return 0;
    }

    @Override
    public RawBsonDocument tryNext() {
      throw new UnsupportedOperationException();
    }

    @Override
    public ServerCursor getServerCursor() {
      return null;
    }

    @Override
    public ServerAddress getServerAddress() {
      return new ServerAddress();
    }
  }

  private static List<Integer> readAll(MongoDocumentCursor cursor) {
    List<Integer> ids = new ArrayList<>();
    for (RawBsonDocument document = cursor.next(); document != null; document = cursor.next()) {
      ids.add(document.getInt32("_id").getValue());
    }
    return ids;
  }

  @Test
  void aCursorLostMidPartitionIsReopenedAfterTheLastIdAndTheReadCompletes() {
    Server server = new Server(List.of(4, 3));
    MongoDocumentCursor cursor = new MongoDocumentCursor("shop.orders all _ids", server::open);
    assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), readAll(cursor), "every document once, in _id order");
    assertEquals(List.of("none", "4", "7"), server.openedAfter.stream()
        .map(after -> after == null ? "none" : String.valueOf(after.asInt32().getValue())).toList());
    assertEquals(2, server.closed, "each lost cursor was closed before the next was opened");
    cursor.close();
  }

  @Test
  void aCursorLostBeforeItsFirstDocumentIsReopenedFromTheStart() {
    Server server = new Server(List.of(0));
    MongoDocumentCursor cursor = new MongoDocumentCursor("shop.orders all _ids", server::open);
    assertEquals(10, readAll(cursor).size());
    assertEquals(2, server.openedAfter.size());
    assertNull(server.openedAfter.get(1));
  }

  @Test
  void aCursorLostAgainAndAgainWithoutProgressFailsTheReadAsRetryable() {
    Server server = new Server(List.of(2, 0, 0, 0, 0));
    MongoDocumentCursor cursor = new MongoDocumentCursor("shop.orders all _ids", server::open);
    assertEquals(1, cursor.next().getInt32("_id").getValue());
    assertEquals(2, cursor.next().getInt32("_id").getValue());
    ChangeStreamException failed = assertThrows(ChangeStreamException.class, cursor::next);
    assertEquals(43, failed.serverErrorCode());
    assertTrue(failed.retryable(), "the partition is copied again by the activity's retry");
    assertEquals(1 + MongoDocumentCursor.MAX_REOPENS_WITHOUT_PROGRESS, server.openedAfter.size());
  }

  @Test
  void otherServerErrorsAreNotMistakenForALostCursor() {
    List<BsonValue> opened = new ArrayList<>();
    MongoDocumentCursor cursor = new MongoDocumentCursor("shop.orders all _ids", after -> {
      opened.add(after);
      return new FakeCursor(PARTITION.iterator(), Integer.MAX_VALUE, new Server(List.of())) {
        @Override
        public boolean hasNext() {
          throw new MongoCommandException(BsonDocument.parse("{ok: 0, code: 13, errmsg: 'not authorized'}"),
              new ServerAddress());
        }
      };
    });
    assertThrows(RuntimeException.class, cursor::next);
    assertEquals(1, opened.size(), "not reopened");
  }
}
