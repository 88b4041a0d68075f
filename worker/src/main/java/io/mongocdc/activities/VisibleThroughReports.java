package io.mongocdc.activities;

import io.mongocdc.pipeline.Freshness;
import io.mongocdc.ports.VisibilityLog;
import io.mongocdc.secrets.Redaction;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes a running batch's progress on to its {@link VisibilityLog} when the visible rows reached
 * further than at the last report. A report that fails is logged and the batch goes on: the
 * figure is for people watching, the rows and the checkpoint do not depend on it. Used on the
 * pull's progress thread only.
 */
final class VisibleThroughReports {

  private static final Logger log = LoggerFactory.getLogger(VisibleThroughReports.class);

  private final String mirror;
  private final VisibilityLog visibility;
  private Instant reported;
  private boolean failing;

  VisibleThroughReports(String mirror, VisibilityLog visibility) {
    this.mirror = mirror;
    this.visibility = visibility;
  }

  void report(Freshness freshness) {
    if (freshness == null || reported != null && !freshness.visibleThrough().isAfter(reported)) {
      return;
    }
    try {
      visibility.record(mirror, freshness.visibleThrough());
      reported = freshness.visibleThrough();
      failing = false;
    } catch (RuntimeException e) {
      if (!failing) {
        log.warn("mirror {}: could not record how far the visible rows reach (mirror_status shows the last"
            + " batch's figure until it can): {}", mirror, Redaction.redact(String.valueOf(e.getMessage())));
      }
      failing = true;
    }
  }
}
