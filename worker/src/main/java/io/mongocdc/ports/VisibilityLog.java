package io.mongocdc.ports;

import java.time.Instant;

/**
 * Where a running batch reports how far the destination's visible rows reach, every progress
 * report (a few seconds): the catalog's {@code mirrors.visible_through}, which {@code
 * mirror_status} shows between batch ends.
 */
@FunctionalInterface
public interface VisibilityLog {

  /** Records nothing (a worker without a catalog, tests that do not look). */
  VisibilityLog NONE = (mirror, visibleThrough) -> {};

  /** @param visibleThrough the source commit time of the newest change visible in the destination */
  void record(String mirror, Instant visibleThrough);
}
