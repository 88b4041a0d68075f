package io.mongocdc.faults;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressWatchTest {

  private static final long SECOND = 1_000_000_000L;

  private final AtomicLong now = new AtomicLong(1_000 * SECOND);
  private final ProgressWatch watch = new ProgressWatch(Duration.ofSeconds(60), Duration.ofMinutes(5), now::get);

  @Test
  void aSlowScenarioThatKeepsMovingIsNotOverdueThoughItTakesLongerThanTheStallLimit() {
    for (int step = 1; step <= 4; step++) {
      now.addAndGet(59 * SECOND);
      assertNull(watch.overdue(step), "step " + step);
    }
    assertFalse(watch.expired());
  }

  @Test
  void aScenarioWhoseMarkStandsStillForTheStallLimitIsOverdueAndSaysSo() {
    now.addAndGet(10 * SECOND);
    assertNull(watch.overdue(3));
    now.addAndGet(59 * SECOND);
    assertNull(watch.overdue(3));
    now.addAndGet(SECOND);
    String why = watch.overdue(3);
    assertTrue(why != null && why.startsWith("no progress for 60.0 s (progress mark 3 after 70.0 s)"), why);
    assertTrue(watch.expired());
  }

  @Test
  void aScenarioThatMovesForEverIsOverdueAtTheCeiling() {
    long step = 0;
    while (now.addAndGet(30 * SECOND) < 1_000 * SECOND + 300 * SECOND) {
      assertNull(watch.overdue(++step));
    }
    String why = watch.overdue(++step);
    assertTrue(why != null && why.startsWith("still not done after 300.0 s"), why);
  }
}
