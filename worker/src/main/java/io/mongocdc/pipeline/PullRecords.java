package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorSetting;
import io.mongocdc.workflows.model.MirrorSettings;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The PullRecords core: one batch of change data capture for one mirror.
 *
 * <p>From a starting position it reads the change stream until the batch size, the idle
 * timeout or the batch duration is reached, decodes events on {@code N} threads while keeping
 * their order, writes them to a {@link RecordSink}, commits, and returns the last delivered
 * checkpoint. See {@code docs/architecture.md} for the invariants it keeps.
 *
 * <p>Each call owns its threads (one reader, N decoders, one sender, one progress reporter) and
 * has stopped all of them, and closed its cursor, before it returns or throws.
 */
public final class PullRecords {

  /**
   * The mirror settings a pull reads; they are checked by their declarations when a pull is made,
   * so one that cannot work is refused with the declaration's message, never turned into a hang.
   */
  public static final List<MirrorSetting<?>> MIRROR_SETTINGS = List.of(MirrorSettings.BATCH_SIZE,
      MirrorSettings.IDLE_TIMEOUT_SECONDS, MirrorSettings.MAX_BATCH_DURATION_SECONDS,
      MirrorSettings.MAX_VISIBILITY_DELAY, MirrorSettings.DECODE_WORKERS, MirrorSettings.CHUNK_SIZE,
      MirrorSettings.CONTROL_EVENT_POLICY);

  private final String mirror;
  private final ChangeStreamOpener opener;
  private final ChangeEventDecoder decoder;
  private final MirrorSettings mirrorSettings;
  private final PullSettings settings;
  /** Null: the mirror's {@code maxBatchDurationSeconds}. */
  private final Duration timeLimit;
  private final LongSupplier clock;
  private final DecodedBytesBudget budget;
  private final PoisonEvents poison;
  /** Null: the pull decodes with its own slots, as many as the mirror's {@code decodeWorkers}. */
  private final DecodeThreads decodeThreads;
  private final FreshnessListener freshness;
  private final TurnSignal turns;
  private final CopyReplays copyReplays;

  /**
   * @param mirror the mirror's name, used in thread names and messages
   * @param mirrorSettings the mirror's settings: what a batch reads ({@link #MIRROR_SETTINGS})
   * @param settings the worker's knobs
   * @param clock a nanosecond clock for the idle timeout and batch duration
   * @param budget caps the decoded bytes held at once; share one among every pull of a worker
   *     ({@link DecodedBytesBudget#ofDefaultSize()} for one of its own)
   */
  public PullRecords(
      String mirror,
      ChangeStreamOpener opener,
      ChangeEventDecoder decoder,
      MirrorSettings mirrorSettings,
      PullSettings settings,
      LongSupplier clock,
      DecodedBytesBudget budget) {
    this(mirror, opener, decoder, workable(mirrorSettings), settings, null, clock, budget, PoisonEvents.NONE, null,
        FreshnessListener.none(), TurnSignal.NONE, CopyReplays.NONE);
  }

  private PullRecords(String mirror, ChangeStreamOpener opener, ChangeEventDecoder decoder,
      MirrorSettings mirrorSettings, PullSettings settings, Duration timeLimit, LongSupplier clock,
      DecodedBytesBudget budget, PoisonEvents poison, DecodeThreads decodeThreads, FreshnessListener freshness,
      TurnSignal turns, CopyReplays copyReplays) {
    this.copyReplays = Objects.requireNonNull(copyReplays, "copyReplays");
    this.mirrorSettings = mirrorSettings;
    this.timeLimit = timeLimit;
    this.turns = Objects.requireNonNull(turns, "turns");
    this.freshness = Objects.requireNonNull(freshness, "freshness");
    this.poison = Objects.requireNonNull(poison, "poison");
    this.decodeThreads = decodeThreads;
    this.mirror = Objects.requireNonNull(mirror, "mirror");
    this.opener = Objects.requireNonNull(opener, "opener");
    this.decoder = Objects.requireNonNull(decoder, "decoder");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.budget = Objects.requireNonNull(budget, "budget");
  }

  /** This pull with poison events screened and handled as {@code poison} says (none by default). */
  public PullRecords withPoisonEvents(PoisonEvents poison) {
    return new PullRecords(mirror, opener, decoder, mirrorSettings, settings, timeLimit, clock, budget, poison, decodeThreads, freshness, turns, copyReplays);
  }

  /** This pull telling {@code listener} how fresh each committed chunk was when it became visible. */
  public PullRecords withFreshnessListener(FreshnessListener listener) {
    return new PullRecords(mirror, opener, decoder, mirrorSettings, settings, timeLimit, clock, budget, poison, decodeThreads,
        Objects.requireNonNull(listener, "listener"), turns, copyReplays);
  }

  /**
   * This pull decoding in the slots of {@code decodeThreads}, which every pull of a worker
   * shares, so the mirrors of one worker together decode on about as many threads as it has cores.
   */
  public PullRecords withDecodeThreads(DecodeThreads decodeThreads) {
    return new PullRecords(mirror, opener, decoder, mirrorSettings, settings, timeLimit, clock, budget, poison,
        Objects.requireNonNull(decodeThreads, "decodeThreads"), freshness, turns, copyReplays);
  }

  /**
   * This pull ending by {@link EndReason#MAX_DURATION} after {@code limit} when that comes before
   * the mirror's {@code maxBatchDurationSeconds}: for a batch that already spent part of its time.
   */
  public PullRecords withTimeLimit(Duration limit) {
    if (limit.isNegative() || limit.isZero()) {
      throw new IllegalArgumentException("a pull's time limit must be positive, got " + limit);
    }
    return new PullRecords(mirror, opener, decoder, mirrorSettings, settings, limit, clock, budget, poison,
        decodeThreads, freshness, turns, copyReplays);
  }

  /** This pull ending ({@link EndReason#TURN_OVER}) once {@code turns} says it has had its turn. */
  public PullRecords withTurns(TurnSignal turns) {
    return new PullRecords(mirror, opener, decoder, mirrorSettings, settings, timeLimit, clock, budget, poison, decodeThreads, freshness,
        Objects.requireNonNull(turns, "turns"), copyReplays);
  }

  /**
   * This pull leaving out of its freshness figures (and its listener) the records {@code replays}
   * says a snapshot copy made visible before the batch replays them.
   */
  public PullRecords withCopyReplays(CopyReplays replays) {
    return new PullRecords(mirror, opener, decoder, mirrorSettings, settings, timeLimit, clock, budget, poison,
        decodeThreads, freshness, turns, Objects.requireNonNull(replays, "replays"));
  }

  /**
   * Runs one batch.
   *
   * @param start where to read from: the mirror's committed checkpoint
   * @param sink where records go; committed at the end, for size (every {@link
   *     PullSettings#commitIntervalRecords()} records or {@link PullSettings#commitIntervalBytes()}
   *     if set) and for visibility (within the mirror's {@code maxVisibilityDelay} of reading a
   *     record, and at once when the reader has caught up with the stream)
   * @param progress told the delivered checkpoint and counts every
   *     {@link PullSettings#progressInterval()}; throwing from it fails the pull
   * @return the delivered checkpoint and the batch's figures
   * @throws PullRecordsException with the first failure of any stage as its cause
   * @throws InterruptedException if the calling thread is interrupted; the pull is then
   *     cancelled, and has stopped its threads when this is thrown
   */
  public PullResult pull(StreamPosition start, RecordSink sink, ProgressListener progress)
      throws InterruptedException {
    Objects.requireNonNull(sink, "sink");
    return pull(start, List.of(sink), progress);
  }

  /**
   * Runs one batch over several sinks (apply lanes), each written by a thread of its own: every
   * record goes to the lane its table and key hash to, so a document's records stay in source
   * order on one sink while the lanes write in parallel. A commit commits every lane; the
   * delivered checkpoint moves only once all of them have committed.
   *
   * @param sinks one or more sinks, each on its own connection; a failure of any fails the pull
   */
  public PullResult pull(StreamPosition start, List<? extends RecordSink> sinks, ProgressListener progress)
      throws InterruptedException {
    Objects.requireNonNull(start, "start position");
    Objects.requireNonNull(sinks, "sinks");
    if (sinks.isEmpty()) {
      throw new IllegalArgumentException("a pull needs at least one sink");
    }
    sinks.forEach(sink -> Objects.requireNonNull(sink, "sink"));
    Objects.requireNonNull(progress, "progress listener");
    DecodeThreads decoding = decodeThreads != null ? decodeThreads
        : new DecodeThreads(mirrorSettings.decodeWorkers());
    return new PullRun(mirror, opener, decoder, mirrorSettings, settings, maxDuration(), clock, start, sinks, progress,
        budget, decoding, poison, freshness, turns, copyReplays).execute();
  }

  /** How long the batch may read: the mirror's batch duration, or the time limit when that is shorter. */
  private Duration maxDuration() {
    Duration mirrors = Duration.ofSeconds(mirrorSettings.maxBatchDurationSeconds());
    return timeLimit != null && timeLimit.compareTo(mirrors) < 0 ? timeLimit : mirrors;
  }

  /** @throws IllegalArgumentException naming each setting a pull reads that cannot work */
  private static MirrorSettings workable(MirrorSettings settings) {
    Objects.requireNonNull(settings, "mirror settings");
    List<String> problems = settings.problems(MIRROR_SETTINGS);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return settings;
  }
}
