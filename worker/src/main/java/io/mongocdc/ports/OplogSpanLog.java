package io.mongocdc.ports;

import io.mongocdc.workflows.model.OplogSpan;
import java.time.Instant;

/**
 * Where a batch that ended reports the source's oplog span as it read it: the catalog's {@code
 * mirrors.oplog_*} columns, from which the catalog's readers tell how much history the committed
 * checkpoint has left while no batch runs.
 */
@FunctionalInterface
public interface OplogSpanLog {

  /** Records nothing (a worker without a catalog, tests that do not look). */
  OplogSpanLog NONE = (mirror, span, observedAt) -> {};

  void record(String mirror, OplogSpan span, Instant observedAt);
}
