package io.mongocdc.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReadPacerTest {

  @Test
  void aReaderFasterThanTheRateWaitsUntilEachDocumentIsDue() throws InterruptedException {
    AtomicLong now = new AtomicLong(1_000);
    AtomicLong slept = new AtomicLong();
    ReadPacer pacer = new ReadPacer(100, now::get, nanos -> {
      slept.addAndGet(nanos);
      now.addAndGet(nanos);
    });
    for (int i = 0; i < 250; i++) {
      pacer.read(1);
    }
    assertEquals(2_500_000_000L, slept.get(), "250 documents at 100 per second take 2.5 s");
  }

  @Test
  void aSlowReaderNeverWaits() throws InterruptedException {
    AtomicLong now = new AtomicLong();
    ReadPacer pacer = new ReadPacer(10, now::get, nanos -> {
      throw new AssertionError("waited " + nanos);
    });
    for (int i = 0; i < 5; i++) {
      now.addAndGet(200_000_000L);
      pacer.read(1);
    }
  }

  @Test
  void aRateThatCannotWorkIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> ReadPacer.systemClock(0));
  }
}
