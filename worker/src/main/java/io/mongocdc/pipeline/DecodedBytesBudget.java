package io.mongocdc.pipeline;

import java.util.concurrent.CancellationException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cap on the decoded bytes that pulls hold at once: decoded chunks waiting for their sender and
 * those being written to the destination. One budget is meant to be shared by every pull of a
 * worker, because several mirrors run on one worker and the heap they share is one.
 *
 * <p>The reader takes a chunk's bytes before the chunk is decoded, as many as its decoded events
 * could take at most ({@link ChunkDecoder#mostHeapBytesOf}); the decode worker gives back the
 * part the chunk did not need once it is decoded, and the sender the rest once the destination
 * has taken the records. So a chunk being decoded is inside the budget too. While the budget is
 * used up the reader waits: back-pressure reaches the source.
 *
 * <p>The semaphore is fair: a chunk waiting for many bytes is not overtaken by smaller ones of
 * other pulls, which could otherwise starve it for ever. Within one pull chunks take their bytes
 * in the order they are cut (the reader takes them), so every chunk holding bytes is one the
 * sender reaches without waiting for a chunk that holds none: the holders always drain.
 * A chunk larger than the whole budget takes all of it, so it goes through alone rather than
 * never.
 */
public final class DecodedBytesBudget {

  /** Share of the maximum heap the default budget takes. */
  static final int DEFAULT_HEAP_DIVISOR = 4;
  /** The default never goes below this, so a small heap still decodes a maximum-size event. */
  static final long MIN_DEFAULT_BYTES = 64L << 20;

  private final long maxBytes;
  /** Bytes per permit: 1 up to 2 GiB; above that, as many as make the budget fit in an int. */
  private final long unit;
  private final int totalPermits;
  private final Semaphore permits;
  private final AtomicLong held = new AtomicLong();
  private final AtomicLong highWaterMark = new AtomicLong();

  /** @throws IllegalArgumentException if {@code maxBytes} is not positive */
  public DecodedBytesBudget(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException(
          "maxDecodedBytesInFlight must be at least 1 byte, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
    this.unit = Math.max(1, ceilDiv(maxBytes, Integer.MAX_VALUE));
    this.totalPermits = (int) Math.max(1, maxBytes / unit);
    this.permits = new Semaphore(totalPermits, true);
  }

  /** A budget of {@link #defaultMaxBytes()}. */
  public static DecodedBytesBudget ofDefaultSize() {
    return new DecodedBytesBudget(defaultMaxBytes());
  }

  /**
   * A quarter of the maximum heap, at least 64 MiB. The rest is for what the budget does not
   * cover: raw chunks in flight, the destination's
   * staged records and buffers, and the Temporal client.
   */
  public static long defaultMaxBytes() {
    return defaultMaxBytes(Runtime.getRuntime().maxMemory());
  }

  static long defaultMaxBytes(long maxHeap) {
    return Math.max(MIN_DEFAULT_BYTES, maxHeap / DEFAULT_HEAP_DIVISOR);
  }

  public long maxBytes() {
    return maxBytes;
  }

  /** Decoded bytes held now, by every pull on the budget. */
  public long heldBytes() {
    return held.get();
  }

  /**
   * The most decoded bytes held at any one time since the budget was made: never above {@link
   * #maxBytes()} unless a single chunk larger than the budget went through alone.
   */
  public long highWaterMark() {
    return highWaterMark.get();
  }

  /** Threads waiting for bytes now. */
  int waiting() {
    return permits.getQueueLength();
  }

  /** One pull's share of the budget; closing it returns whatever the pull still holds. */
  Account openAccount() {
    return new Account();
  }

  /** The permits a chunk of {@code bytes} takes: all of them if it is larger than the budget. */
  private int permitsFor(long bytes) {
    return (int) Math.min(totalPermits, ceilDiv(bytes, unit));
  }

  /** Math.ceilDiv, which Java 17 lacks; both arguments positive. */
  private static long ceilDiv(long dividend, long divisor) {
    return -Math.floorDiv(-dividend, divisor);
  }

  /**
   * The bytes one pull holds. A pull that fails or is cancelled closes its account once its
   * threads are stopped, so chunks that never reached the destination do not shrink the budget
   * of every other pull for ever.
   */
  final class Account implements AutoCloseable {
    private int heldPermits;
    private long heldBytes;
    private boolean closed;

    /**
     * Waits until the budget has room for {@code bytes}, then takes them.
     *
     * @throws InterruptedException if interrupted while waiting (the pull is aborting)
     * @throws CancellationException if the account was closed meanwhile
     */
    Lease acquire(long bytes) throws InterruptedException {
      if (bytes <= 0) {
        return Lease.NONE;
      }
      int needed = permitsFor(bytes);
      permits.acquire(needed);
      synchronized (this) {
        if (closed) {
          permits.release(needed);
          throw new CancellationException("the pull ended while a chunk waited for decoded-bytes budget");
        }
        heldPermits += needed;
        heldBytes += bytes;
        // Counted only once the permits are ours, so the gauge never runs ahead of the cap.
        long now = held.addAndGet(bytes);
        highWaterMark.accumulateAndGet(now, Math::max);
      }
      return new Lease(this, bytes, needed);
    }

    /** Gives back what the lease holds beyond {@code bytes}; a lease never grows. */
    private synchronized void shrink(Lease lease, long bytes) {
      if (closed || lease.released || bytes >= lease.bytes) {
        return;
      }
      int keep = bytes <= 0 ? 0 : permitsFor(bytes);
      int freed = lease.permits - keep;
      long freedBytes = lease.bytes - Math.max(0, bytes);
      lease.permits = keep;
      lease.bytes -= freedBytes;
      heldPermits -= freed;
      heldBytes -= freedBytes;
      held.addAndGet(-freedBytes);
      permits.release(freed);
    }

    private synchronized void release(Lease lease) {
      if (closed || lease.released) {
        return;
      }
      lease.released = true;
      heldPermits -= lease.permits;
      heldBytes -= lease.bytes;
      held.addAndGet(-lease.bytes);
      permits.release(lease.permits);
    }

    /** Bytes this pull holds now. */
    synchronized long heldBytes() {
      return heldBytes;
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      held.addAndGet(-heldBytes);
      permits.release(heldPermits);
      heldPermits = 0;
      heldBytes = 0;
    }
  }

  /** The bytes of one decoded chunk; {@link #release} gives them back, once. */
  static final class Lease {
    static final Lease NONE = new Lease(null, 0, 0);

    private final Account account;
    // Changed only under the account's lock.
    private long bytes;
    private int permits;
    private boolean released;

    private Lease(Account account, long bytes, int permits) {
      this.account = account;
      this.bytes = bytes;
      this.permits = permits;
    }

    long bytes() {
      synchronized (account == null ? this : account) {
        return bytes;
      }
    }

    /** Keeps only {@code bytes} of the lease (what the chunk turned out to take), gives back the rest. */
    void shrinkTo(long value) {
      if (account != null) {
        account.shrink(this, value);
      }
    }

    void release() {
      if (account != null) {
        account.release(this);
      }
    }
  }
}
