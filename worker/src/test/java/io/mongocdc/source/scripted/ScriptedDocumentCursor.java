package io.mongocdc.source.scripted;

import io.mongocdc.snapshot.DocumentCursor;
import java.util.function.Consumer;
import org.bson.RawBsonDocument;

/**
 * An in-memory snapshot cursor with what a test injected into its open: at its Nth call to next,
 * it waits at a gate or throws, then reads on.
 */
final class ScriptedDocumentCursor implements DocumentCursor {

  /** What a test injected into one open: at the {@code nth} call to next, pass a gate or throw. */
  record Injection(long nth, Gate gate, RuntimeException failure) {}

  private final DocumentCursor reader;
  private final Injection injection;
  private final Consumer<ScriptedDocumentCursor> onClose;
  private long calls;

  private boolean closed;
  private Thread waiter;
  private boolean interruptedByClose;

  /** @param injection null for none */
  ScriptedDocumentCursor(DocumentCursor reader, Injection injection, Consumer<ScriptedDocumentCursor> onClose) {
    this.reader = reader;
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
    return reader.next();
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
    reader.close();
    onClose.accept(this);
  }
}
