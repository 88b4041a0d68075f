package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mongocdc.pipeline.DecodedBytesBudget;
import org.junit.jupiter.api.Test;

/** The worker's pull knobs: the decoded-bytes budget defaults from the heap and must be positive. */
class PullTuningTest {

  @Test
  void theDecodedBytesBudgetDefaultsFromTheHeap() {
    assertEquals(DecodedBytesBudget.defaultMaxBytes(), PullTuning.defaults().maxDecodedBytesInFlight());
    assertEquals(1L << 30, PullTuning.defaults().withMaxDecodedBytesInFlight(1L << 30).maxDecodedBytesInFlight());
  }

  @Test
  void aBudgetThatCannotWorkIsRejectedWithItsName() {
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> PullTuning.defaults().withMaxDecodedBytesInFlight(0));
    assertEquals("maxDecodedBytesInFlight must be at least 1 byte, got 0", zero.getMessage());
    assertThrows(IllegalArgumentException.class, () -> PullTuning.defaults().withMaxDecodedBytesInFlight(-5));
  }
}
