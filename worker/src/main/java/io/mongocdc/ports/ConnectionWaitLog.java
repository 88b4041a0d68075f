package io.mongocdc.ports;

import java.time.Instant;

/**
 * Where a batch says it waits for its destination connections, and that it stopped waiting: the
 * catalog's {@code mirrors.waiting_since}, which {@code mirror_status} shows as {@code waiting for
 * destination connections}.
 */
@FunctionalInterface
public interface ConnectionWaitLog {

  /** Records nothing (a worker without a catalog, tests that do not look). */
  ConnectionWaitLog NONE = (mirror, since) -> {};

  /** @param since when the batch began to wait; null when it waits no more */
  void record(String mirror, Instant since);
}
