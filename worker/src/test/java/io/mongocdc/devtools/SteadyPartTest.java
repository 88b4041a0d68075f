package io.mongocdc.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class SteadyPartTest {

  private static final Instant START = Instant.parse("2026-12-02T10:00:00Z");

  @Test
  void aLongRunLeavesOutItsWarmUp() {
    assertEquals(START.plus(DevRun.STEADY_AFTER), DevRun.steadyStart(START, START.plusSeconds(120)));
  }

  @Test
  void aShortRunLeavesOutItsFirstThird() {
    assertEquals(START.plusSeconds(4), DevRun.steadyStart(START, START.plusSeconds(12)));
  }
}
