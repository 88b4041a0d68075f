package io.mongocdc.activities;

import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.QuarantineLog;
import io.mongocdc.pipeline.PoisonEvents;
import io.mongocdc.workflows.model.MirrorConfig;

/** A mirror's {@code poisonEventPolicy} as the pipeline and the snapshot copy apply it. */
final class PoisonEventPolicy {

  /** What a snapshot copy records as the batch of the events it sets aside. */
  static final long SNAPSHOT_BATCH = 0;

  private PoisonEventPolicy() {}

  /**
   * The destination's screen for one attempt, and the mirror's policy for what it finds: FAIL
   * names the event and fails the attempt; QUARANTINE keeps it in {@code quarantine} and goes on.
   */
  static PoisonEvents of(MirrorConfig mirror, MirrorDestination destination, QuarantineLog quarantine, long batchId) {
    return mirror.settings().poisonEventPolicy() == io.mongocdc.workflows.model.PoisonEventPolicy.QUARANTINE
        ? PoisonEvents.quarantining(destination.screen(mirror),
            event -> quarantine.setAside(mirror.name(), batchId, event))
        : PoisonEvents.failing(destination.screen(mirror));
  }
}
