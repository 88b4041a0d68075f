package io.mongocdc.source.scripted;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** A nanosecond clock that moves only when told to, so idle timeouts are deterministic in tests. */
public final class ManualClock implements LongSupplier {

  private final AtomicLong nanos = new AtomicLong();

  public void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }

  @Override
  public long getAsLong() {
    return nanos.get();
  }
}
