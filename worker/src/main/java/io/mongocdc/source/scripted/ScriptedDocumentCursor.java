package io.mongocdc.source.scripted;

import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * Reads a scripted collection in {@code _id} order, one batch at a time, like a server cursor:
 * a batch is taken when the previous one is used up, so changes made between batches are seen
 * if they lie ahead of the cursor. Runs an injected gate or failure at its Nth call to next.
 */
final class ScriptedDocumentCursor implements DocumentCursor {

  /** What a test injected into one open: at the {@code nth} call to next, pass a gate or throw. */
  record Injection(long nth, Gate gate, RuntimeException failure) {}

  private final ScriptedCollection collection;
  private final IdRange range;
  private final DocumentFilter filter;
  private final int batchSize;
  private final Injection injection;
  private final Consumer<ScriptedDocumentCursor> onClose;
  private final Deque<RawBsonDocument> batch = new ArrayDeque<>();
  private BsonValue lastId;
  private boolean exhausted;
  private long calls;

  private boolean closed;
  private Thread waiter;
  private boolean interruptedByClose;

  ScriptedDocumentCursor(ScriptedCollection collection, IdRange range, DocumentFilter filter, int batchSize,
      Injection injection, Consumer<ScriptedDocumentCursor> onClose) {
    this.collection = collection;
    this.range = range;
    this.filter = filter;
    this.batchSize = batchSize;
    this.injection = injection;
    this.onClose = onClose;
  }

  @Override
  public RawBsonDocument next() {
    checkOpen();
    calls++;
    if (injection != null && injection.nth() == calls) {
      if (injection.gate() != null) {
        passGate(injection.gate());
      } else {
        throw injection.failure();
      }
    }
    if (batch.isEmpty() && !exhausted && collection != null) {
      List<RawBsonDocument> next = collection.batchAfter(lastId, range, filter, batchSize);
      batch.addAll(next);
      exhausted = next.size() < batchSize;
      if (!next.isEmpty()) {
        lastId = next.get(next.size() - 1).get("_id");
      }
    }
    return batch.poll();
  }

  /** Waits at the gate; a close from another thread ends the wait with an exception, never a null. */
  private void passGate(Gate gate) {
    synchronized (this) {
      checkOpen();
      waiter = Thread.currentThread();
    }
    boolean interrupted = false;
    try {
      gate.pass();
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      synchronized (this) {
        waiter = null;
        if (interruptedByClose) {
          // The interrupt was ours, not the caller's: clear it so the thread's owner is not misled.
          Thread.interrupted();
          interrupted = false;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading a scripted snapshot cursor");
    }
    checkOpen();
  }

  private synchronized void checkOpen() {
    if (closed) {
      // Never null: a closed cursor must not look like a fully read partition.
      throw new IllegalStateException("the snapshot cursor is closed");
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      if (waiter != null) {
        interruptedByClose = true;
        waiter.interrupt();
      }
    }
    onClose.accept(this);
  }
}
