package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One PullRecords call: wires the stages, runs them, and tears everything down. */
final class PullRun {

  private static final Logger log = LoggerFactory.getLogger(PullRun.class);
  private static final AtomicLong CALLS = new AtomicLong();
  /**
   * Record lists queued per apply lane. With the in-flight chunks this bounds what a pull holds
   * in memory when the destination stalls: in-flight chunks + lanes x this, each at most a chunk.
   */
  static final int APPLY_QUEUE_CHUNKS = 2;

  private final String mirror;
  private final PullSettings settings;
  private final StreamPosition start;
  private final List<RecordSink> sinks;
  private final ProgressListener progress;

  private final PipelineCounters counters = new PipelineCounters();
  private final List<Thread> poolThreads = new CopyOnWriteArrayList<>();
  private final PullOutcome outcome = new PullOutcome(this::abort);
  private final CaughtUpSignal caughtUp = new CaughtUpSignal();
  private final ExecutorService decodePool;
  private final ScheduledExecutorService progressReporter;
  private final ChunkReader reader;
  private final ChunkSender sender;
  private final Thread readerThread;
  private final Thread senderThread;
  private final List<Thread> laneThreads = new ArrayList<>();
  private final int inFlightBound;
  private final Semaphore inFlightPermits;
  private final ChunkAdmission admission;
  private final long startNanos = System.nanoTime();

  PullRun(
      String mirror,
      ChangeStreamOpener opener,
      ChangeEventDecoder decoder,
      MirrorSettings mirrorSettings,
      PullSettings settings,
      Duration maxDuration,
      LongSupplier clock,
      StreamPosition start,
      List<? extends RecordSink> sinks,
      ProgressListener progress,
      DecodedBytesBudget budget,
      DecodeThreads decodeThreads,
      PoisonEvents poison,
      FreshnessListener freshnessListener,
      TurnSignal turns,
      CopyReplays copyReplays) {
    this.mirror = mirror;
    this.settings = settings;
    this.start = start;
    this.sinks = List.copyOf(sinks);
    this.progress = progress;
    String prefix = "mongo-cdc-" + mirror + "-" + CALLS.incrementAndGet() + "-";
    // More threads than the worker's decode slots would only wait for them.
    this.decodePool = Executors.newFixedThreadPool(Math.min(mirrorSettings.decodeWorkers(), decodeThreads.max()),
        named(prefix + "decode-"));
    this.progressReporter = Executors.newSingleThreadScheduledExecutor(named(prefix + "progress-"));
    BlockingQueue<ChunkInFlight> toSender = new LinkedBlockingQueue<>();
    this.inFlightBound = inFlightBound(settings, mirrorSettings.decodeWorkers());
    this.inFlightPermits = new Semaphore(inFlightBound);
    this.admission = new ChunkAdmission(budget);
    this.reader = new ChunkReader(mirror, opener, start, mirrorSettings, settings, maxDuration, clock,
        new ChunkDecoder(decoder, counters, poison.setsAside()), decodePool, decodeThreads, toSender, inFlightPermits,
        admission, counters, outcome, caughtUp, turns);
    this.readerThread = new Thread(reader, prefix + "reader");
    // One sink is written by the sender itself; several get a lane thread each.
    List<ApplyLane> lanes = new ArrayList<>();
    if (this.sinks.size() > 1) {
      for (int i = 0; i < this.sinks.size(); i++) {
        ApplyLane lane = new ApplyLane(i, this.sinks.get(i), APPLY_QUEUE_CHUNKS, counters, outcome);
        lanes.add(lane);
        laneThreads.add(new Thread(lane, prefix + "apply-" + i));
      }
    }
    this.sender = new ChunkSender(mirror, start, mirrorSettings, settings, this.sinks.get(0), lanes, toSender, inFlightPermits,
        counters, outcome, this::stopReader, poison, freshnessListener, copyReplays, caughtUp);
    this.senderThread = new Thread(() -> {
      sender.run();
      if (!outcome.hasFailed()) {
        outcome.succeed(result());
      }
    }, prefix + "sender");
  }

  /**
   * The in-flight bound a pull uses: the worker's {@link PullSettings#maxInFlightChunks()}, twice
   * the decode workers when it is not set, and never below the decode workers, because a lower
   * bound would leave workers idle and silently cap the parallelism asked for.
   */
  static int inFlightBound(PullSettings settings, int decodeWorkers) {
    Integer asked = settings.maxInFlightChunks();
    return Math.max(asked == null ? 2 * decodeWorkers : asked, decodeWorkers);
  }

  PullResult execute() throws InterruptedException {
    try {
      return run();
    } finally {
      // Every thread is stopped (or reported stuck): what the pull still holds, chunks that never
      // reached the destination, goes back to the budget other pulls share.
      admission.close();
    }
  }

  private PullResult run() throws InterruptedException {
    laneThreads.forEach(Thread::start);
    readerThread.start();
    senderThread.start();
    long interval = settings.progressInterval().toNanos();
    progressReporter.scheduleAtFixedRate(this::reportProgress, interval, interval, TimeUnit.NANOSECONDS);
    try {
      outcome.await();
    } catch (InterruptedException e) {
      outcome.fail(new CancellationException("PullRecords of mirror '" + mirror + "' was cancelled"));
      stuck(stopAll()).forEach(e::addSuppressed);
      throw e;
    }
    List<String> stuck = stopAll();
    Throwable failure = outcome.failure();
    if (failure != null) {
      PullRecordsException error = new PullRecordsException(mirror, failure, progressSnapshot());
      stuck(stuck).forEach(error::addSuppressed);
      throw error;
    }
    PullResult result = outcome.result();
    logBatch(result);
    return result;
  }

  /** Threads that outlived the call, as errors its caller is told of, whichever way it ends. */
  private List<IllegalStateException> stuck(List<String> threadNames) {
    return threadNames.stream()
        .map(name -> new IllegalStateException("thread " + name + " did not stop within " + settings.shutdownTimeout()))
        .toList();
  }

  /** The first failure's reaction: every stage stops what it is doing, now. */
  private void abort() {
    decodePool.shutdownNow();
    readerThread.interrupt();
    senderThread.interrupt();
    laneThreads.forEach(Thread::interrupt);
    for (RecordSink sink : sinks) {
      try {
        sink.abort(outcome.failure());
      } catch (RuntimeException e) {
        log.warn("mirror {}: sink abort failed", mirror, e);
      }
    }
  }

  private void stopReader() {
    reader.requestStop();
    readerThread.interrupt();
  }

  /** Stops and joins every thread of the call; returns the names of any that did not stop. */
  private List<String> stopAll() {
    // A report in flight is a heartbeat RPC: interrupted, the SDK logs it as a failed heartbeat
    // with a stack trace on every normal end. It finishes instead, within the shutdown deadline.
    progressReporter.shutdown();
    decodePool.shutdownNow();
    long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
    List<String> stuck = new ArrayList<>();
    boolean interrupted = false;
    List<Thread> threads = new ArrayList<>(List.of(readerThread, senderThread));
    threads.addAll(laneThreads);
    threads.addAll(poolThreads);
    for (Thread thread : threads) {
      while (thread.isAlive()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          stuck.add(thread.getName());
          break;
        }
        try {
          thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    try {
      if (!progressReporter.awaitTermination(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        progressReporter.shutdownNow();
        stuck.add("progress reporter");
      }
    } catch (InterruptedException e) {
      progressReporter.shutdownNow();
      interrupted = true;
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (!stuck.isEmpty()) {
      log.error("mirror {}: threads did not stop within {}: {}", mirror, settings.shutdownTimeout(), stuck);
    }
    return stuck;
  }

  private void reportProgress() {
    if (outcome.isDecided()) {
      return;
    }
    try {
      progress.onProgress(progressSnapshot());
    } catch (Throwable t) {
      outcome.fail(t);
    }
  }

  PullProgress progressSnapshot() {
    ChunkSender.Delivered delivered = sender.delivered();
    return new PullProgress(
        delivered.position(),
        counters.eventsRead.get(),
        counters.recordsDecoded.sum(),
        counters.recordsStaged.get(),
        counters.recordsDelivered.get(),
        inFlightBound - inFlightPermits.availablePermits(),
        Duration.ofNanos(System.nanoTime() - startNanos),
        timings(),
        delivered.tables(),
        delivered.firstRecord(),
        delivered.counted(),
        delivered.freshness());
  }

  private PullResult result() {
    ChunkSender.Delivered delivered = sender.delivered();
    return new PullResult(
        delivered.position(),
        sender.stoppedAt() != null ? EndReason.CONTROL_EVENT : reader.endReason(),
        counters.eventsRead.get(),
        counters.recordsDelivered.get(),
        counters.bytesRead.get(),
        delivered.tables(),
        delivered.firstRecord(),
        delivered.counted(),
        sender.controlEvents(),
        sender.stoppedAt(),
        counters.replaysSkipped.get(),
        reader.streamReopens(),
        timings(),
        delivered.freshness());
  }

  /** Where the call has spent its time so far. */
  private StageTimings timings() {
    return new StageTimings(
        Duration.ofNanos(System.nanoTime() - startNanos),
        Duration.ofNanos(counters.readNanos.get()),
        Duration.ofNanos(counters.readerBackPressureNanos.get()),
        Duration.ofNanos(counters.decodeNanos.sum()),
        Duration.ofNanos(counters.senderWaitNanos.get()),
        Duration.ofNanos(counters.sinkWriteNanos.get()),
        Duration.ofNanos(counters.sinkCommitNanos.get()),
        Duration.ofNanos(counters.applyBackPressureNanos.get()),
        Duration.ofNanos(counters.laneCommitNanos.get()));
  }

  private void logBatch(PullResult result) {
    double seconds = Math.max(1e-9, result.timings().total().toNanos() / 1e9);
    log.info("mirror {}: batch ended ({}): {} events read, {} records delivered, {} bytes, {} events/s,"
            + " {} apply lanes, stage ms {}, checkpoint {}", mirror, result.endReason(), result.eventsRead(),
        result.recordsDelivered(), result.bytesRead(), Math.round(result.eventsRead() / seconds), sinks.size(),
        result.timings().millisByStage(), result.checkpoint());
  }

  /** Names the call's pool threads and remembers them, so the call can join every one. */
  private ThreadFactory named(String prefix) {
    AtomicInteger next = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + next.incrementAndGet());
      thread.setDaemon(true);
      poolThreads.add(thread);
      return thread;
    };
  }
}
