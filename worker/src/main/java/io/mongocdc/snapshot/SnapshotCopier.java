package io.mongocdc.snapshot;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.pipeline.PoisonEvent;
import io.mongocdc.pipeline.PoisonEvents;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.DocumentRenderException;
import io.mongocdc.decode.DocumentRenderer;
import io.mongocdc.decode.KeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.source.ResumeToken;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.RawBsonDocument;

/**
 * Copies one snapshot partition: every document the cursor yields becomes an insert record at
 * the snapshot's position, written to the sink in chunks, in the cursor's ({@code _id}) order, and
 * committed a few chunks at a time (each chunk on its own by default). The copy runs beside change
 * batches, which write the same tables: a transaction is read whole from the source before it is
 * written, so it holds its row locks only while it writes and commits, and a batch that meets one
 * waits little (and the copy's sink gives way to a batch's locks, see
 * {@code MirrorDestination#openCopySink}), while a commit per few documents would spend the copy
 * on commits.
 *
 * <p>Any order is safe because every row keeps the position of the change that wrote it and the
 * merge only writes over an older one: copied rows carry the copy's start position, older than
 * every streamed change's, so a copied row never replaces a streamed change. A copy that fails part
 * way leaves the chunks it committed; the partition is recorded done only after its last chunk
 * committed, so a retry copies the whole partition again, and rows already there at the same
 * position (or newer) are left alone.
 *
 * <p>Memory is one transaction of rendered documents (the sink keeps them to write again). Runs on
 * the caller's thread.
 */
public final class SnapshotCopier {

  /** Told after each commit; throwing (a cancelled activity's heartbeat does) stops the copy. */
  @FunctionalInterface
  public interface Progress {
    void copied(long documents, long bytes) throws Exception;
  }

  /** What a partition's copy did. */
  /**
   * @param documents documents written to the destination
   * @param bytes their raw BSON bytes
   * @param quarantined documents set aside as poison events ({@code poisonEventPolicy} QUARANTINE)
   */
  public record Copied(long documents, long bytes, long quarantined) {}

  private final DocumentRenderer renderer;
  private final KeyRenderer keys;
  private final PoisonEvents poison;
  private final int chunkSize;
  private final ColumnProjections projections;
  private final int transactionDocuments;
  private final long transactionBytes;

  /**
   * @param poison asked of every document before it is written (see {@code poisonEventPolicy});
   *     {@link PoisonEvents#NONE} for none
   * @param projections the typed columns of each table, extracted from each document as it is
   *     rendered; {@link ColumnProjections#NONE} for none
   */
  public SnapshotCopier(DocumentRenderer renderer, KeyRenderer keys, int chunkSize, PoisonEvents poison,
      ColumnProjections projections) {
    this(renderer, keys, chunkSize, poison, projections, 1, 1);
  }

  /**
   * As {@link #SnapshotCopier(DocumentRenderer, KeyRenderer, int, PoisonEvents, ColumnProjections)},
   * committing once a transaction's chunks hold {@code transactionDocuments} documents or {@code
   * transactionBytes} bytes (the chunk that reaches either is the transaction's last).
   */
  public SnapshotCopier(DocumentRenderer renderer, KeyRenderer keys, int chunkSize, PoisonEvents poison,
      ColumnProjections projections, int transactionDocuments, long transactionBytes) {
    this.transactionDocuments = transactionDocuments;
    this.transactionBytes = transactionBytes;
    this.projections = Objects.requireNonNull(projections, "projections");
    this.poison = Objects.requireNonNull(poison, "poison");
    this.renderer = Objects.requireNonNull(renderer, "renderer");
    this.keys = Objects.requireNonNull(keys, "keys");
    if (chunkSize <= 0) {
      throw new IllegalArgumentException("chunkSize must be at least 1, got " + chunkSize);
    }
    this.chunkSize = chunkSize;
  }

  /**
   * Copies the cursor's documents into {@code table}, committing as the transaction bounds say. On
   * any failure the sink is aborted, so the transaction under way is not applied (those committed
   * before stay), and
   * the failure is rethrown.
   */
  public Copied copy(DocumentCursor cursor, Namespace source, String table, ResumeToken position,
      Instant commitTime, RecordSink sink, Progress progress) throws Exception {
    long documents = 0;
    long bytes = 0;
    long quarantined = 0;
    DocumentProjector projector = projections.of(source);
    try {
      // A transaction's documents are read first and written after, so no row lock is held while
      // the source is read: a read that stalls (a slow source, a stuck cursor) would otherwise
      // keep the batches that meet those rows waiting with it.
      List<ChangeRecord> transaction = new ArrayList<>();
      long bytesInTransaction = 0;
      for (RawBsonDocument document = cursor.next(); document != null; document = cursor.next()) {
        int size = document.getByteBuffer().remaining();
        ChangeRecord record = new ChangeRecord(Operation.INSERT, source, table, keyOf(document, source),
            render(document, source), position, commitTime, size, null, null,
            projector == null ? null : projector.project(document));
        PoisonEvent refused = poison.screen(record);
        if (refused != null) {
          // Kept (or failing the copy) before its chunk commits, as in a batch.
          poison.take(refused);
          quarantined++;
          continue;
        }
        transaction.add(record);
        documents++;
        bytes += size;
        bytesInTransaction += size;
        if (transaction.size() % chunkSize == 0
            && (transaction.size() >= transactionDocuments || bytesInTransaction >= transactionBytes)) {
          writeAndCommit(transaction, sink);
          transaction = new ArrayList<>();
          bytesInTransaction = 0;
          progress.copied(documents, bytes);
        }
      }
      writeAndCommit(transaction, sink);
      return new Copied(documents, bytes, quarantined);
    } catch (Exception | Error e) {
      sink.abort(e);
      throw e;
    }
  }

  /** Writes {@code transaction} in chunks and commits it (an empty one commits nothing new). */
  private void writeAndCommit(List<ChangeRecord> transaction, RecordSink sink) throws Exception {
    for (int from = 0; from < transaction.size(); from += chunkSize) {
      sink.write(new ArrayList<>(transaction.subList(from, Math.min(transaction.size(), from + chunkSize))));
    }
    sink.commit();
  }

  private String keyOf(RawBsonDocument document, Namespace source) {
    try {
      return keys.renderIdOf(document);
    } catch (DocumentRenderException e) {
      throw new DocumentRenderException("a document of " + source + " has no usable _id: " + e.getMessage(), e);
    }
  }

  private String render(RawBsonDocument document, Namespace source) {
    try {
      return renderer.render(document);
    } catch (DocumentRenderException e) {
      // The key is the one thing that tells an operator which document to look at.
      throw new DocumentRenderException("document " + keyOf(document, source) + " of " + source
          + " cannot be rendered: " + e.getMessage(), e);
    }
  }
}
