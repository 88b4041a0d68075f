package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PendingCommitTimesTest {

  @Test
  void keepsEveryTimeUpToItsCapacity() {
    PendingCommitTimes times = new PendingCommitTimes(8);
    for (long t = 0; t < 8; t++) {
      times.add(100 + t);
    }
    assertEquals(8, times.kept());
    assertEquals(1, times.weight());
    assertArrayEquals(new long[] {100, 101, 102, 103, 104, 105, 106, 107}, Arrays.copyOf(times.millis(), 8));
  }

  @Test
  void beyondItsCapacityKeepsAnEvenlySpreadSampleEachStandingForAsManyRecords() {
    PendingCommitTimes times = new PendingCommitTimes(8);
    for (long t = 0; t < 37; t++) {
      times.add(t);
    }
    // Full at 8, 16 and 32 records: every eighth record's time is kept.
    assertEquals(37, times.records());
    assertEquals(8, times.weight());
    assertArrayEquals(new long[] {0, 8, 16, 24, 32}, Arrays.copyOf(times.millis(), times.kept()),
        "kept " + times.kept());
  }

  @Test
  void neverHoldsMoreThanItsCapacity() {
    PendingCommitTimes times = new PendingCommitTimes(16);
    for (long t = 0; t < 100_000; t++) {
      times.add(t);
      assertTrue(times.kept() <= 16, "kept " + times.kept());
    }
    assertEquals(100_000, times.records());
    // What is kept stands for every record, to within one stride.
    long covered = times.kept() * (long) times.weight();
    assertTrue(covered >= 100_000 && covered - 100_000 < times.weight(), covered + " by " + times.weight());
  }

  @Test
  void aClearStartsOverAtFullDetail() {
    PendingCommitTimes times = new PendingCommitTimes(4);
    for (long t = 0; t < 20; t++) {
      times.add(t);
    }
    times.clear();
    times.add(7);
    times.add(8);
    assertEquals(1, times.weight());
    assertEquals(2, times.kept());
    assertEquals(2, times.records());
    assertArrayEquals(new long[] {7, 8}, Arrays.copyOf(times.millis(), 2));
  }

  @Test
  void refusesACapacityThatCannotHalveEvenly() {
    assertThrows(IllegalArgumentException.class, () -> new PendingCommitTimes(12));
  }
}
