package io.mongocdc.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * dev's streaming rate, polled every 500 ms as dev polls the catalog, whose delivered total moves
 * only when a batch ends (issue 47, finding 11: it read {@code 0 rec/s} between batch ends).
 */
class DeliveryRateTest {

  private static final long POLL = 500_000_000L;

  @Test
  void betweenBatchEndsTheRateHoldsTheMirrorsPaceInsteadOfReadingZero() {
    DeliveryRate rate = new DeliveryRate();
    // 20 000 records per batch, a batch ending every 4 s: 5 000 records per second.
    long records = 0;
    for (int poll = 0; poll <= 80; poll++) {
      if (poll > 0 && poll % 8 == 0) {
        records += 20_000;
      }
      double shown = rate.sample(poll * POLL, records);
      if (poll >= 16) {
        // From the second batch end on, every poll, between batch ends too.
        assertEquals(5_000, shown, 1, "poll " + poll);
      }
    }
  }

  @Test
  void beforeTheSecondBatchEndItIsTheFirstBatchOverTheTimeSinceTheStart() {
    DeliveryRate rate = new DeliveryRate();
    assertEquals(0, rate.sample(0, 0));
    assertEquals(0, rate.sample(POLL, 0), "nothing delivered yet");
    assertEquals(10_000, rate.sample(4 * POLL, 20_000), 1);
    assertEquals(10_000, rate.sample(5 * POLL, 20_000), 1, "held between batch ends");
  }

  @Test
  void aMirrorThatStopsDeliveringFallsTowardsZeroOnceTheNextBatchIsLate() {
    DeliveryRate rate = new DeliveryRate();
    long records = 0;
    long at = 0;
    for (int poll = 0; poll <= 40; poll++) {
      at = poll * POLL;
      if (poll > 0 && poll % 8 == 0) {
        records += 20_000;
      }
      rate.sample(at, records);
    }
    // The last batch ended at 20 s; 4 s is the usual gap, so the rate holds until 24 s.
    assertEquals(5_000, rate.sample(at + 8 * POLL, records), 1);
    double late = rate.sample(at + 40 * POLL, records);
    assertTrue(late < 3_000, "16 s past the usual gap: " + late);
    double stopped = rate.sample(at + 600 * POLL, records);
    assertTrue(stopped < 300, "5 minutes without a batch end: " + stopped);
  }

  @Test
  void aChangeOfPaceShowsWithinAFewBatchEnds() {
    DeliveryRate rate = new DeliveryRate();
    long records = 0;
    int poll = 0;
    for (; poll <= 40; poll++) {
      if (poll > 0 && poll % 8 == 0) {
        records += 20_000;
      }
      rate.sample(poll * POLL, records);
    }
    // Now a batch every 2 s: 10 000 records per second, once the last four batch ends are all 2 s apart.
    double shown = 0;
    for (int more = 1; more <= 5 * 4; more++) {
      poll++;
      if (more % 4 == 0) {
        records += 20_000;
      }
      shown = rate.sample(poll * POLL, records);
    }
    assertEquals(10_000, shown, 1);
  }
}
