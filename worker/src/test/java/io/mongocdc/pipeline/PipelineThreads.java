package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;

/** Checks that no pipeline thread outlives its call. */
final class PipelineThreads {

  private PipelineThreads() {}

  static List<String> alive() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("mongo-cdc-"))
        .sorted()
        .toList();
  }

  /**
   * The CPU time used so far by the pipeline's threads and by {@code caller}: it grows while the
   * pull works, however slowly a busy machine lets it, and stands still while it hangs. A thread
   * that has ended counts with the time last seen in {@code seen} (thread id to CPU time).
   */
  static long cpuNanos(Thread caller, Map<Long, Long> seen) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread == caller || thread.getName().startsWith("mongo-cdc-")) {
        long cpu = threads.getThreadCpuTime(thread.getId());
        if (cpu > 0) {
          seen.merge(thread.getId(), cpu, Math::max);
        }
      }
    }
    return seen.values().stream().mapToLong(Long::longValue).sum();
  }

  static void assertNoneAlive() {
    assertEquals(List.of(), alive(), "pipeline threads left alive");
  }

  /** The reader thread of the call in progress, or null. */
  static Thread reader() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("mongo-cdc-") && t.getName().endsWith("-reader"))
        .findFirst()
        .orElse(null);
  }

  /**
   * Waits until the reader is parked on the in-flight semaphore: the state in which back-pressure
   * has reached it. Polls thread state, which is a condition, not a timed guess.
   */
  static void awaitReaderWaitingForInFlightSlot() {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      Thread reader = reader();
      if (reader != null && reader.getState() == Thread.State.WAITING && waitsOnSemaphore(reader)) {
        return;
      }
      Thread.onSpinWait();
      Thread.yield();
    }
    throw new AssertionError("the reader never waited for an in-flight slot");
  }

  /**
   * Waits until the sender is parked handing records to an apply lane whose queue is full: the
   * state in which back-pressure from apply has reached it.
   */
  static void awaitSenderWaitingForAFullLane() {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      Thread sender = sender();
      if (sender != null && sender.getState() == Thread.State.WAITING && inFrame(sender, ApplyLane.class.getName(), "send")) {
        return;
      }
      Thread.onSpinWait();
      Thread.yield();
    }
    throw new AssertionError("the sender never waited for a full apply lane");
  }

  /** Waits until the sender is parked waiting for a chunk's decode to finish. */
  static void awaitSenderWaitingForDecode() {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      Thread sender = sender();
      if (sender != null && sender.getState() == Thread.State.WAITING
          && inFrame(sender, ChunkSender.class.getName(), "awaitDecoded")) {
        return;
      }
      Thread.onSpinWait();
      Thread.yield();
    }
    throw new AssertionError("the sender never waited for a chunk's decode");
  }

  /**
   * Waits until the readers of {@code count} pulls in progress are parked reserving a chunk's
   * decoded bytes: the state in which the budget holds reading and decoding back.
   */
  static void awaitReadersWaitingForBudget(int count) {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      if (readersWaitingForBudget() >= count) {
        return;
      }
      Thread.onSpinWait();
      Thread.yield();
    }
    throw new AssertionError("fewer than " + count + " readers ever waited for decoded-bytes budget");
  }

  /** Readers (of any pull in progress) parked reserving a chunk's decoded bytes. */
  static long readersWaitingForBudget() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("mongo-cdc-") && t.getName().endsWith("-reader"))
        .filter(t -> t.getState() == Thread.State.WAITING
            && inFrame(t, DecodedBytesBudget.Account.class.getName(), "acquire"))
        .count();
  }

  private static Thread sender() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("mongo-cdc-") && t.getName().endsWith("-sender"))
        .findFirst()
        .orElse(null);
  }

  private static boolean inFrame(Thread thread, String className, String method) {
    for (StackTraceElement frame : thread.getStackTrace()) {
      if (frame.getClassName().equals(className) && frame.getMethodName().equals(method)) {
        return true;
      }
    }
    return false;
  }

  private static boolean waitsOnSemaphore(Thread thread) {
    for (StackTraceElement frame : thread.getStackTrace()) {
      if (frame.getClassName().equals(java.util.concurrent.Semaphore.class.getName())) {
        return true;
      }
    }
    return false;
  }
}
