package io.mongocdc.source.scripted;

import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.ResumeTokenNotFoundException;
import io.mongocdc.source.StreamPosition;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;

/**
 * A change stream played from a script: the events of an "oplog" in stream order, idle polls
 * between them, and faults that fire when a cursor is about to yield a chosen event.
 *
 * <p>It opens cursors at any position the way a server does ({@code resumeAfter} yields the
 * events after the token, {@code startAtOperationTime} those at or after the time), so a
 * pipeline that reopens the stream sees the same history again. Each fault fires a set number of
 * times in total, across all cursors. Once the script is played out, cursors poll idle forever.
 *
 * <p>Used by the pipeline tests, the benchmarks and the development load generator; the
 * MongoDB driver adapter replaces it in production.
 */
public final class ScriptedChangeStream implements ChangeStreamOpener {

  private final List<Step> steps;
  private final Map<Integer, Deque<Fault>> faultsByEvent = new HashMap<>();
  private final ManualClock clock;
  private final Duration idlePollDuration;
  private final List<StreamPosition> opened = new CopyOnWriteArrayList<>();
  private final AtomicInteger openCursors = new AtomicInteger();
  private final AtomicInteger eventsYielded = new AtomicInteger();
  /** The furthest step any cursor has played: a reopened cursor does not replay idle time before it. */
  private final AtomicInteger playedUpTo = new AtomicInteger();
  private volatile boolean reportsReadiness;

  private ScriptedChangeStream(List<Step> steps, ManualClock clock, Duration idlePollDuration) {
    this.steps = List.copyOf(steps);
    this.clock = clock;
    this.idlePollDuration = idlePollDuration;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A stream of just these events, then idle polls. */
  public static ScriptedChangeStream of(List<RawBsonDocument> events) {
    return builder().events(events).build();
  }

  // ---- faults, each firing before the cursor yields event number eventIndex (0-based) ----

  /** Throws {@code error} instead of yielding the event, {@code times} times in total. */
  public ScriptedChangeStream failAt(int eventIndex, RuntimeException error, int times) {
    return addFault(eventIndex, new Fault.Fail(error), times);
  }

  public ScriptedChangeStream failAt(int eventIndex, RuntimeException error) {
    return failAt(eventIndex, error, 1);
  }

  /** Throws "resume token not found" (server error 280) instead of yielding the event. */
  public ScriptedChangeStream resumeTokenNotFoundAt(int eventIndex, int times) {
    return addFault(eventIndex, new Fault.Fail(new ResumeTokenNotFoundException(
        "Executor error during getMore :: caused by :: cannot resume stream; the resume token was not found",
        null)), times);
  }

  /** Waits {@code delay} (a slow server) before yielding the event. */
  public ScriptedChangeStream delayAt(int eventIndex, Duration delay) {
    return addFault(eventIndex, new Fault.Delay(delay), 1);
  }

  /** Blocks before yielding the event until the returned gate is released. */
  public Gate blockAt(int eventIndex) {
    Gate gate = new Gate();
    addFault(eventIndex, new Fault.Block(gate), 1);
    return gate;
  }

  private synchronized ScriptedChangeStream addFault(int eventIndex, Fault fault, int times) {
    Deque<Fault> faults = faultsByEvent.computeIfAbsent(eventIndex, i -> new ArrayDeque<>());
    for (int i = 0; i < times; i++) {
      faults.add(fault);
    }
    return this;
  }

  private synchronized Fault takeFault(int eventIndex) {
    Deque<Fault> faults = faultsByEvent.get(eventIndex);
    return faults == null ? null : faults.poll();
  }

  /**
   * Cursors answer {@link ChangeStreamCursor#eventReady} as a server's would: false when the next
   * step is idle, the script is played out, or a delay or block waits before the next event (the
   * reader has caught up). Without this they answer true, as cursors that cannot tell do.
   */
  public ScriptedChangeStream reportingReadiness() {
    reportsReadiness = true;
    return this;
  }

  private synchronized boolean waitsBefore(int eventIndex) {
    Deque<Fault> faults = faultsByEvent.get(eventIndex);
    return faults != null && faults.stream().anyMatch(f -> f instanceof Fault.Delay || f instanceof Fault.Block);
  }

  // ---- observations ----

  /** The positions cursors were opened at, in order. */
  public List<StreamPosition> openedPositions() {
    return List.copyOf(opened);
  }

  /** Cursors opened and not yet closed. */
  public int openCursorCount() {
    return openCursors.get();
  }

  public int eventsYielded() {
    return eventsYielded.get();
  }

  /** The resume token of event number {@code eventIndex}. */
  public ResumeToken tokenOf(int eventIndex) {
    return eventSteps().get(eventIndex).token;
  }

  public int eventCount() {
    return eventSteps().size();
  }

  private List<EventStep> eventSteps() {
    List<EventStep> events = new ArrayList<>();
    for (Step step : steps) {
      if (step instanceof EventStep event) {
        events.add(event);
      }
    }
    return events;
  }

  @Override
  public ChangeStreamCursor open(StreamPosition position) {
    opened.add(position);
    int start = firstStepAfter(position);
    openCursors.incrementAndGet();
    return new Cursor(start, position.tokenOrNull(), playedUpTo.get());
  }

  /** The step after the last event the position covers; idle steps after it are played. */
  private int firstStepAfter(StreamPosition position) {
    int first = 0;
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i) instanceof EventStep event && !follows(event, position)) {
        first = i + 1;
      }
    }
    return first;
  }

  private static boolean follows(EventStep event, StreamPosition position) {
    return position instanceof StreamPosition.AfterToken after
        ? event.token.isAfter(after.token())
        : event.clusterTime.compareTo(((StreamPosition.AtOperationTime) position).clusterTime()) >= 0;
  }

  private final class Cursor implements ChangeStreamCursor {
    private int next;
    private ResumeToken postBatchToken;
    private boolean closed;
    private final int replayHorizon;

    Cursor(int start, ResumeToken startToken, int replayHorizon) {
      this.next = start;
      this.postBatchToken = startToken;
      this.replayHorizon = replayHorizon;
    }

    @Override
    public RawBsonDocument tryNext() throws InterruptedException {
      if (closed) {
        throw new IllegalStateException("cursor is closed");
      }
      if (next >= steps.size()) {
        idlePoll();
        return null;
      }
      // A server replays events after a reopen, not the quiet time that passed between them.
      while (next < replayHorizon && next < steps.size() && steps.get(next) instanceof IdleStep) {
        next++;
      }
      if (next >= steps.size()) {
        idlePoll();
        return null;
      }
      Step step = steps.get(next);
      playedUpTo.accumulateAndGet(next + 1, Math::max);
      if (step instanceof IdleStep idle) {
        next++;
        if (idle.postBatchToken != null) {
          postBatchToken = idle.postBatchToken;
        }
        idlePoll();
        return null;
      }
      EventStep event = (EventStep) step;
      Fault fault;
      while ((fault = takeFault(event.eventIndex)) != null) {
        fault.apply();
      }
      next++;
      postBatchToken = event.token;
      eventsYielded.incrementAndGet();
      return event.event;
    }

    @Override
    public boolean eventReady() {
      if (!reportsReadiness) {
        return true;
      }
      return next < steps.size() && steps.get(next) instanceof EventStep event && !waitsBefore(event.eventIndex);
    }

    private void idlePoll() {
      if (clock != null) {
        clock.advance(idlePollDuration);
      }
    }

    @Override
    public ResumeToken postBatchResumeToken() {
      return postBatchToken;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        openCursors.decrementAndGet();
      }
    }
  }

  private sealed interface Step permits EventStep, IdleStep {}

  private record EventStep(int eventIndex, RawBsonDocument event, ResumeToken token, BsonTimestamp clusterTime)
      implements Step {}

  private record IdleStep(ResumeToken postBatchToken) implements Step {}

  private sealed interface Fault {
    void apply() throws InterruptedException;

    record Fail(RuntimeException error) implements Fault {
      @Override
      public void apply() {
        throw error;
      }
    }

    record Delay(Duration delay) implements Fault {
      @Override
      public void apply() throws InterruptedException {
        // Simulates a slow server; it is not used to order threads.
        Thread.sleep(delay.toMillis());
      }
    }

    record Block(Gate gate) implements Fault {
      @Override
      public void apply() throws InterruptedException {
        gate.pass();
      }
    }
  }

  /** Builds the script in stream order. */
  public static final class Builder {
    private final List<Step> steps = new ArrayList<>();
    private int eventCount;
    private ManualClock clock;
    private Duration idlePollDuration = Duration.ofSeconds(1);

    public Builder event(RawBsonDocument event) {
      ResumeToken token = ResumeToken.fromDocument(event.getDocument("_id"));
      BsonTimestamp clusterTime = event.getTimestamp("clusterTime");
      steps.add(new EventStep(eventCount++, event, token, clusterTime));
      return this;
    }

    public Builder events(List<RawBsonDocument> events) {
      events.forEach(this::event);
      return this;
    }

    /** One idle poll (no event within the await time) that leaves the post-batch token as is. */
    public Builder idle() {
      steps.add(new IdleStep(null));
      return this;
    }

    /** One idle poll after which the cursor reports {@code postBatchToken}. */
    public Builder idle(ResumeToken postBatchToken) {
      steps.add(new IdleStep(postBatchToken));
      return this;
    }

    /** Each idle poll advances {@code clock} by {@code pollDuration}, as a real await would. */
    public Builder clock(ManualClock clock, Duration pollDuration) {
      this.clock = clock;
      this.idlePollDuration = pollDuration;
      return this;
    }

    public ScriptedChangeStream build() {
      return new ScriptedChangeStream(steps, clock, idlePollDuration);
    }
  }
}
