package io.mongocdc.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DocumentRenderException;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.pipeline.PoisonEvents;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.source.ResumeToken;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

class SnapshotCopierTest {

  private static final Namespace ORDERS = new Namespace("shop", "orders");
  private static final ResumeToken POSITION = ResumeToken.of("8265000000000000A1");
  private static final Instant AT = Instant.ofEpochSecond(1_700_000_000);

  private final SnapshotCopier copier = new SnapshotCopier(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), 3, PoisonEvents.NONE, ColumnProjections.NONE);

  @Test
  void copiesEveryDocumentAsAnInsertAtTheStartPositionCommittingEachChunk() throws Exception {
    RecordingSink sink = new RecordingSink();
    List<Long> progress = new ArrayList<>();

    SnapshotCopier.Copied copied = copier.copy(cursor(documents(7)), ORDERS, "shop.orders", POSITION, AT, sink,
        (documents, bytes) -> progress.add(documents));

    assertEquals(7, copied.documents());
    assertEquals(List.of(3, 3, 1), sink.chunkSizes);
    assertEquals(List.of("write 3", "commit", "write 3", "commit", "write 1", "commit"), sink.calls,
        "each chunk in a transaction of its own");
    assertEquals(List.of(3L, 6L), progress, "progress after each full chunk");
    ChangeRecord first = sink.records.get(0);
    assertEquals(Operation.INSERT, first.operation());
    assertEquals(POSITION, first.position());
    assertEquals(AT, first.commitTime());
    assertEquals("{\"_id\":0,\"name\":\"n0\"}", first.document());
    assertEquals(new IdKeyRenderer().render(new BsonInt32(0)), first.key());
    assertEquals(documents(7).stream().mapToLong(d -> d.getByteBuffer().remaining()).sum(), copied.bytes());
  }

  @Test
  void aTransactionHoldsChunksUntilItReachesItsDocumentsOrItsBytes() throws Exception {
    SnapshotCopier byDocuments = new SnapshotCopier(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), 3,
        PoisonEvents.NONE, ColumnProjections.NONE, 5, Long.MAX_VALUE);
    RecordingSink sink = new RecordingSink();
    List<Long> progress = new ArrayList<>();
    byDocuments.copy(cursor(documents(13)), ORDERS, "shop.orders", POSITION, AT, sink,
        (documents, bytes) -> progress.add(documents));
    assertEquals(List.of("write 3", "write 3", "commit", "write 3", "write 3", "commit", "write 1", "commit"),
        sink.calls, "the chunk that reaches 5 documents ends the transaction");
    assertEquals(List.of(6L, 12L), progress, "progress after each commit");

    long oneDocument = documents(1).get(0).getByteBuffer().remaining();
    SnapshotCopier byBytes = new SnapshotCopier(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), 3,
        PoisonEvents.NONE, ColumnProjections.NONE, Integer.MAX_VALUE, 4 * oneDocument);
    RecordingSink bytesSink = new RecordingSink();
    byBytes.copy(cursor(documents(7)), ORDERS, "shop.orders", POSITION, AT, bytesSink, (d, b) -> {});
    assertEquals(List.of("write 3", "write 3", "commit", "write 1", "commit"), bytesSink.calls,
        "the chunk that reaches the bytes ends the transaction");
  }

  /**
   * A read that stalls must not keep row locks: the batches that meet those rows would wait with it
   * (fault seed 64: a copy stalled in the source blocked a cancelled batch, whose cancellation then
   * never completed). So no document is read between a write and its commit.
   */
  @Test
  void noDocumentIsReadWhileATransactionHoldsUncommittedWrites() throws Exception {
    SnapshotCopier copier = new SnapshotCopier(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), 3,
        PoisonEvents.NONE, ColumnProjections.NONE, 5, Long.MAX_VALUE);
    RecordingSink sink = new RecordingSink();
    DocumentCursor documents = cursor(documents(13));
    List<String> readsAfterAWrite = new ArrayList<>();
    DocumentCursor checking = new DocumentCursor() {
      @Override
      public RawBsonDocument next() {
        if (!sink.calls.isEmpty() && sink.calls.get(sink.calls.size() - 1).startsWith("write")) {
          readsAfterAWrite.add("read after " + sink.calls);
        }
        return documents.next();
      }

      @Override
      public void close() {}
    };
    copier.copy(checking, ORDERS, "shop.orders", POSITION, AT, sink, (d, b) -> {});
    assertEquals(List.of(), readsAfterAWrite);
    assertEquals(13, sink.records.size());
  }

  /** Refuses document 4, as the destination refuses an _id too long for its primary key. */
  private static final io.mongocdc.pipeline.RecordScreen REFUSES_4 =
      record -> record.key().equals(new IdKeyRenderer().render(new BsonInt32(4))) ? "scripted: too long" : null;

  @Test
  void aDocumentTheDestinationCannotHoldIsSetAsideUnderQuarantineAndTheRestIsCopied() throws Exception {
    List<io.mongocdc.pipeline.PoisonEvent> setAside = new ArrayList<>();
    SnapshotCopier quarantining = new SnapshotCopier(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), 3,
        io.mongocdc.pipeline.PoisonEvents.quarantining(REFUSES_4, setAside::add), ColumnProjections.NONE);
    RecordingSink sink = new RecordingSink();

    SnapshotCopier.Copied copied = quarantining.copy(cursor(documents(7)), ORDERS, "shop.orders", POSITION, AT, sink,
        (d, b) -> {});

    assertEquals(6, copied.documents());
    assertEquals(1, copied.quarantined());
    assertEquals(1, setAside.size());
    assertEquals(POSITION, setAside.get(0).position());
    assertEquals("{\"_id\":4,\"name\":\"n4\"}", setAside.get(0).document());
    assertEquals(6, sink.records.size());
    assertEquals(List.of("write 3", "commit", "write 3", "commit", "commit"), sink.calls);
  }

  @Test
  void aDocumentTheDestinationCannotHoldFailsTheCopyUnderFailNamingItAndItsChunkIsNotCommitted() {
    SnapshotCopier failing = new SnapshotCopier(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), 3,
        io.mongocdc.pipeline.PoisonEvents.failing(REFUSES_4), ColumnProjections.NONE);
    RecordingSink sink = new RecordingSink();

    io.mongocdc.pipeline.PoisonEventException thrown = assertThrows(io.mongocdc.pipeline.PoisonEventException.class,
        () -> failing.copy(cursor(documents(7)), ORDERS, "shop.orders", POSITION, AT, sink, (d, b) -> {}));

    assertTrue(thrown.getMessage().contains("shop.orders") && thrown.getMessage().contains("with _id 4"),
        thrown.getMessage());
    assertEquals(List.of("write 3", "commit"), sink.calls, "only the chunk before it");
    assertSame(thrown, sink.aborted);
  }

  @Test
  void anEmptyPartitionCommitsNothingButStillCommits() throws Exception {
    RecordingSink sink = new RecordingSink();
    assertEquals(0, copier.copy(cursor(List.of()), ORDERS, "t", POSITION, AT, sink, (d, b) -> {}).documents());
    assertEquals(List.of(), sink.chunkSizes);
    assertEquals(1, sink.commits);
  }

  @Test
  void aFailingProgressReportAbortsTheSinkAndNothingAfterItIsWritten() {
    RecordingSink sink = new RecordingSink();
    IllegalStateException cancelled = new IllegalStateException("cancelled");

    IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> copier.copy(
        cursor(documents(7)), ORDERS, "t", POSITION, AT, sink, (d, b) -> {
          throw cancelled;
        }));

    assertSame(cancelled, thrown);
    assertSame(cancelled, sink.aborted);
    assertEquals(List.of("write 3", "commit"), sink.calls, "told after the first chunk committed");
  }

  @Test
  void aDocumentWithoutIdFailsNamingTheCollectionAndAborts() {
    RecordingSink sink = new RecordingSink();
    List<RawBsonDocument> docs = new ArrayList<>(documents(2));
    docs.add(RawBsonDocument.parse("{\"name\": \"no id\"}"));

    DocumentRenderException e = assertThrows(DocumentRenderException.class,
        () -> copier.copy(cursor(docs), ORDERS, "t", POSITION, AT, sink, (d, b) -> {}));

    assertTrue(e.getMessage().contains("shop.orders"), e.getMessage());
    assertSame(e, sink.aborted);
    assertEquals(0, sink.commits);
  }

  @Test
  void chunksMustHoldAtLeastOneDocument() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SnapshotCopier(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), 0, PoisonEvents.NONE, ColumnProjections.NONE));
    assertTrue(e.getMessage().contains("chunkSize must be at least 1"));
  }

  private static List<RawBsonDocument> documents(int n) {
    List<RawBsonDocument> docs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      BsonDocument doc = new BsonDocument("_id", new BsonInt32(i)).append("name", new BsonString("n" + i));
      docs.add(RawBsonDocument.parse(doc.toJson()));
    }
    return docs;
  }

  private static DocumentCursor cursor(List<RawBsonDocument> documents) {
    Deque<RawBsonDocument> queue = new ArrayDeque<>(documents);
    return new DocumentCursor() {
      @Override
      public RawBsonDocument next() {
        return queue.poll();
      }

      @Override
      public void close() {}
    };
  }

  private static final class RecordingSink implements RecordSink {
    final List<ChangeRecord> records = new ArrayList<>();
    final List<Integer> chunkSizes = new ArrayList<>();
    final List<String> calls = new ArrayList<>();
    int commits;
    Throwable aborted;

    @Override
    public void write(List<ChangeRecord> chunk) {
      records.addAll(chunk);
      chunkSizes.add(chunk.size());
      calls.add("write " + chunk.size());
    }

    @Override
    public void commit() {
      commits++;
      calls.add("commit");
    }

    @Override
    public void abort(Throwable cause) {
      aborted = cause;
    }
  }
}
