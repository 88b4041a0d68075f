package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;

/**
 * One apply lane: a thread that owns one {@link RecordSink} (one destination connection and
 * transaction) and writes to it the records the sender routes here, in the order it sent them.
 *
 * <p>Its queue is bounded: a lane that falls behind blocks the sender, which keeps its in-flight
 * chunk, so the reader stops reading (back-pressure from apply reaches the source). Any failure
 * of the sink fails the whole pull at once through the {@link PullOutcome}.
 */
final class ApplyLane implements Runnable {

  /** Tells a lane to make what it was sent durable, then count down the latch. */
  record Commit(CountDownLatch committed) {}

  private static final Object STOP = new Object();

  private final int index;
  private final RecordSink sink;
  private final BlockingQueue<Object> queue;
  private final PipelineCounters counters;
  private final PullOutcome outcome;

  ApplyLane(int index, RecordSink sink, int queueChunks, PipelineCounters counters, PullOutcome outcome) {
    this.index = index;
    this.sink = sink;
    this.queue = new ArrayBlockingQueue<>(queueChunks);
    this.counters = counters;
    this.outcome = outcome;
  }

  /** Records for the lane, and what to run once the sink has taken them. */
  private record Part(List<ChangeRecord> records, Runnable written) {}

  /** Hands records to the lane; blocks while its queue is full. {@code written} runs after their write. */
  void send(List<ChangeRecord> records, Runnable written) throws InterruptedException {
    queue.put(new Part(records, written));
  }

  void send(Commit commit) throws InterruptedException {
    queue.put(commit);
  }

  /** Ends the lane once it has done what it was sent; never blocks (a full queue means a failed pull). */
  void stop() {
    queue.offer(STOP);
  }

  @Override
  public void run() {
    try {
      while (true) {
        Object work = queue.take();
        if (work == STOP) {
          return;
        }
        if (work instanceof Commit commit) {
          long start = System.nanoTime();
          sink.commit();
          counters.laneCommitNanos.addAndGet(System.nanoTime() - start);
          commit.committed().countDown();
        } else {
          Part part = (Part) work;
          long start = System.nanoTime();
          sink.write(part.records());
          counters.sinkWriteNanos.addAndGet(System.nanoTime() - start);
          part.written().run();
        }
      }
    } catch (InterruptedException e) {
      // An abort interrupted us; the outcome is already decided.
      outcome.fail(new IllegalStateException("apply lane " + index + " interrupted", e));
    } catch (Throwable t) {
      outcome.fail(t);
    }
  }
}
