package io.mongocdc.catalog;

import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.model.BatchFigure;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.Stage;
import java.time.Instant;
import java.util.Objects;

/**
 * One batch of a mirror, as recorded in the catalog's batch history.
 *
 * @param endedAt null while the batch runs
 * @param lastPosition token of the checkpoint after the batch; null while it is an operation time
 * @param error the error that failed the batch, null if it succeeded
 * @param figures what the batch did: each figure with a column ({@link BatchFigure#column()}) goes
 *     to that column of {@code batches}; the tables, stage timings, freshness, first position and
 *     column drift go to their own columns and tables
 */
public record BatchReport(String mirror, long batchId, Instant startedAt, Instant endedAt, ResumeToken lastPosition,
    String error, BatchFigures figures) {

  public BatchReport {
    Objects.requireNonNull(mirror, "mirror");
    Objects.requireNonNull(startedAt, "startedAt");
    figures = figures == null ? BatchFigures.zero() : figures;
  }

  /** The milliseconds the batch spent in {@code stage}: null if its timings are unknown, 0 if it did not report it. */
  public Long millisIn(Stage stage) {
    var stageMillis = figures.get(BatchFigures.STAGE_MILLIS);
    return stageMillis == null ? null : stageMillis.getOrDefault(stage.key(), 0L);
  }

  /** The token of the first delivered record; null for an empty batch or if unknown. */
  public ResumeToken firstPosition() {
    String first = figures.get(BatchFigures.FIRST_POSITION);
    return first == null ? null : ResumeToken.of(first);
  }
}
