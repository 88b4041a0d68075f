package io.mongocdc.pipeline;

import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.ResumeTokenNotFoundException;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorSettings;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader stage: the only thread that touches the cursor. It cuts events into chunks and
 * hands each to the decode pool, but reads nothing of an event except its resume token, so it
 * stays fast enough to keep N workers busy.
 *
 * <p>Before a chunk leaves, the reader takes an in-flight permit that the sender returns only
 * once the chunk is written to the sink, so a stalled destination stops the reader instead of
 * filling memory. It also reserves the most decoded bytes the chunk could take from the
 * decoded-bytes budget, waiting while the budget is used up (see {@link ChunkAdmission}).
 */
final class ChunkReader implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(ChunkReader.class);

  private final String mirror;
  private final ChangeStreamOpener opener;
  private final StreamPosition start;
  private final MirrorSettings mirrorSettings;
  private final PullSettings settings;
  /** The mirror's idle timeout and the batch's time limit, in the clock's nanoseconds. */
  private final long idleTimeoutNanos;
  private final long maxDurationNanos;
  private final LongSupplier clock;
  private final ChunkDecoder chunkDecoder;
  private final ExecutorService decodePool;
  private final DecodeThreads decodeThreads;
  private final BlockingQueue<ChunkInFlight> toSender;
  private final Semaphore inFlightPermits;
  private final ChunkAdmission admission;
  private final PipelineCounters counters;
  private final PullOutcome outcome;
  private final CaughtUpSignal caughtUp;

  private volatile boolean stopRequested;
  private volatile EndReason endReason;
  private final TurnSignal turns;
  private volatile int streamReopens;
  /** Whether a chunk went to the sender since the reader last told it it had caught up. */
  private boolean sentSinceCaughtUp;

  ChunkReader(
      String mirror,
      ChangeStreamOpener opener,
      StreamPosition start,
      MirrorSettings mirrorSettings,
      PullSettings settings,
      Duration maxDuration,
      LongSupplier clock,
      ChunkDecoder chunkDecoder,
      ExecutorService decodePool,
      DecodeThreads decodeThreads,
      BlockingQueue<ChunkInFlight> toSender,
      Semaphore inFlightPermits,
      ChunkAdmission admission,
      PipelineCounters counters,
      PullOutcome outcome,
      CaughtUpSignal caughtUp,
      TurnSignal turns) {
    this.mirror = mirror;
    this.turns = turns;
    this.caughtUp = caughtUp;
    this.opener = opener;
    this.start = start;
    this.mirrorSettings = mirrorSettings;
    this.settings = settings;
    this.idleTimeoutNanos = Duration.ofSeconds(mirrorSettings.idleTimeoutSeconds()).toNanos();
    this.maxDurationNanos = maxDuration.toNanos();
    this.clock = clock;
    this.chunkDecoder = chunkDecoder;
    this.decodePool = decodePool;
    this.decodeThreads = decodeThreads;
    this.toSender = toSender;
    this.inFlightPermits = inFlightPermits;
    this.admission = admission;
    this.counters = counters;
    this.outcome = outcome;
  }

  /** Asks the reader to stop reading (the sender met a control event); it sends nothing more. */
  void requestStop() {
    stopRequested = true;
  }

  /** Why reading ended, once it has. */
  EndReason endReason() {
    return endReason;
  }

  int streamReopens() {
    return streamReopens;
  }

  @Override
  public void run() {
    ChangeStreamCursor cursor = null;
    try {
      cursor = opener.open(start);
      ChunkBuilder chunk = new ChunkBuilder(mirrorSettings.chunkSize(), settings.maxChunkBytes());
      ResumeToken lastRead = start.tokenOrNull();
      ResumeToken lastEvent = null;
      ResumeToken skipThrough = null;
      long batchStart = clock.getAsLong();
      long lastEventAt = batchStart;
      RawBsonDocument latest = null;
      while (true) {
        if (stopRequested || outcome.isDecided()) {
          return;
        }
        if (counters.eventsRead.get() >= mirrorSettings.batchSize()) {
          endReason = EndReason.BATCH_SIZE;
          break;
        }
        long elapsed = clock.getAsLong() - batchStart;
        if (elapsed >= maxDurationNanos) {
          endReason = EndReason.MAX_DURATION;
          break;
        }
        if (latest != null && turns.over(elapsed, latest)) {
          endReason = EndReason.TURN_OVER;
          break;
        }
        RawBsonDocument event;
        long readStart = System.nanoTime();
        try {
          event = cursor.tryNext();
        } catch (ResumeTokenNotFoundException e) {
          cursor.close();
          cursor = null;
          StreamPosition reopenAt = reopenPosition(lastRead, e);
          // Everything up to lastRead is already in the ordered pipeline; replays of it are skipped.
          skipThrough = lastRead;
          log.warn("mirror {}: {}; reopening the change stream {} and skipping events up to {}",
              mirror, e.getMessage(), reopenAt, lastRead);
          cursor = opener.open(reopenAt);
          continue;
        } finally {
          counters.readNanos.addAndGet(System.nanoTime() - readStart);
        }

        if (event == null) {
          ResumeToken postBatch = cursor.postBatchResumeToken();
          if (postBatch != null && (lastRead == null || postBatch.isAfter(lastRead))) {
            chunk.advanceTo(postBatch);
            lastRead = postBatch;
          }
          if (!chunk.isEmpty()) {
            // Hand over what we have: the destination works while the stream is quiet.
            send(chunk);
          }
          if (sentSinceCaughtUp) {
            // Nothing more to read right now: what was sent may become visible without waiting.
            caughtUp.force();
            toSender.put(ChunkInFlight.CAUGHT_UP);
            sentSinceCaughtUp = false;
          }
          long now = clock.getAsLong();
          if (now - lastEventAt >= idleTimeoutNanos) {
            endReason = EndReason.IDLE_TIMEOUT;
            break;
          }
          if (turns.over(now - batchStart, null)) {
            endReason = EndReason.TURN_OVER;
            break;
          }
          continue;
        }

        ResumeToken token = tokenOf(event, lastRead);
        if (skipThrough != null) {
          if (!token.isAfter(skipThrough)) {
            counters.replaysSkipped.incrementAndGet();
            continue;
          }
          skipThrough = null;
        }
        if (lastEvent != null && !token.isAfter(lastEvent)) {
          throw new IllegalStateException("change stream of mirror '" + mirror + "' went backwards: event "
              + token + " came after " + lastEvent);
        }
        int size = event.getByteBuffer().remaining();
        chunk.add(event, token, size);
        latest = event;
        lastRead = token;
        lastEvent = token;
        lastEventAt = clock.getAsLong();
        counters.eventsRead.incrementAndGet();
        counters.bytesRead.addAndGet(size);
        // Caught up with the stream and the sender free: hand over what we have, to commit.
        boolean caughtUpNow = !cursor.eventReady() && caughtUp.raise();
        if (chunk.isFull() || caughtUpNow) {
          send(chunk);
        }
        if (caughtUpNow) {
          toSender.put(ChunkInFlight.CAUGHT_UP);
          sentSinceCaughtUp = false;
        }
      }
      if (!chunk.isEmpty()) {
        send(chunk);
      }
      toSender.put(ChunkInFlight.END);
    } catch (InterruptedException e) {
      // Interrupted by an abort (the outcome is decided) or a stop request; nothing to report.
      if (!stopRequested) {
        outcome.fail(new IllegalStateException("reader of mirror '" + mirror + "' interrupted", e));
      }
    } catch (Throwable t) {
      outcome.fail(t);
    } finally {
      // An abort may have interrupted this thread; closing the cursor must not trip over that.
      Thread.interrupted();
      if (cursor != null) {
        cursor.close();
      }
    }
  }

  private StreamPosition reopenPosition(ResumeToken lastRead, ResumeTokenNotFoundException cause) {
    streamReopens++;
    if (streamReopens > settings.maxStreamReopens()) {
      throw new ChangeStreamHistoryLostException(
          "mirror '" + mirror + "': the resume token was still not found after " + settings.maxStreamReopens()
              + " reopen(s) at its cluster time; the change stream history is lost and the mirror must be"
              + " resynchronised",
          cause.serverErrorCode(), cause);
    }
    return lastRead == null ? start : StreamPosition.atOperationTime(lastRead.clusterTime());
  }

  private void send(ChunkBuilder chunk) throws InterruptedException {
    long firstReadNanos = chunk.firstEventNanos();
    send(chunk.cut(), firstReadNanos);
    sentSinceCaughtUp = true;
  }

  private void send(RawChunk raw, long firstReadNanos) throws InterruptedException {
    long waitStart = System.nanoTime();
    inFlightPermits.acquire();
    DecodedBytesBudget.Lease lease;
    try {
      lease = admission.reserve(raw);
    } catch (InterruptedException | RuntimeException e) {
      inFlightPermits.release();
      throw e;
    } finally {
      counters.readerBackPressureNanos.addAndGet(System.nanoTime() - waitStart);
    }
    CompletableFuture<DecodedChunk> decoded;
    try {
      decoded = CompletableFuture.supplyAsync(() -> decodeWithin(raw, lease), decodePool);
    } catch (RuntimeException rejected) {
      // The pool was shut down by an abort; the outcome is already decided.
      lease.release();
      inFlightPermits.release();
      throw rejected;
    }
    // Fail the pull as soon as any chunk fails, not when the sender reaches it.
    decoded.whenComplete((chunk, error) -> {
      if (error != null && !stopRequested) {
        outcome.fail(unwrap(error));
      }
    });
    toSender.put(new ChunkInFlight(raw.sequence(), decoded, firstReadNanos));
  }

  /**
   * Decodes on a pool thread within the bytes the reader reserved, then gives back what the
   * chunk did not need.
   */
  private DecodedChunk decodeWithin(RawChunk raw, DecodedBytesBudget.Lease lease) {
    DecodedChunk chunk;
    try {
      chunk = decodeThreads.decode(() -> chunkDecoder.decode(raw));
    } catch (RuntimeException | Error e) {
      lease.release();
      throw e;
    }
    lease.shrinkTo(chunk.decodedBytes());
    return chunk.withLease(lease);
  }

  private ResumeToken tokenOf(RawBsonDocument event, ResumeToken previous) {
    try {
      return ResumeToken.ofEvent(event);
    } catch (RuntimeException e) {
      throw new IllegalStateException("change event of mirror '" + mirror + "' after " + previous
          + " has no usable resume token: " + e.getMessage(), e);
    }
  }

  static Throwable unwrap(Throwable error) {
    while ((error instanceof java.util.concurrent.CompletionException
            || error instanceof java.util.concurrent.ExecutionException)
        && error.getCause() != null) {
      error = error.getCause();
    }
    return error;
  }
}
