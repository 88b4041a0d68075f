package io.mongocdc.workflows.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Asks the {@code VerifyMirror} workflow to compare a mirror's destination with its source.
 *
 * @param mirror the mirror as it runs (its collections, schema and snapshot partition size)
 * @param repair also re-copy the documents found to differ and delete the rows the source no
 *     longer has
 * @param documentsPerSecond source documents read per second, at most, over all ranges at once
 *     (null means the mirror's {@code verifyDocumentsPerSecond}); verify never reads faster
 * @param parallelRanges ranges compared at the same time (null means the mirror's
 *     {@code snapshotParallelPartitions})
 */
public record VerifyRequest(MirrorConfig mirror, boolean repair, Integer documentsPerSecond, Integer parallelRanges) {

  static final SettingType.Whole DOCUMENTS_PER_SECOND = new SettingType.Whole(1, 10_000_000);
  static final SettingType.Whole PARALLEL_RANGES = new SettingType.Whole(1, 64);

  public VerifyRequest {
    MirrorSettings settings = mirror == null || mirror.settings() == null ? null : mirror.settings();
    if (documentsPerSecond == null) {
      documentsPerSecond = settings == null ? MirrorSettings.VERIFY_DOCUMENTS_PER_SECOND.defaultValue()
          : settings.verifyDocumentsPerSecond();
    }
    if (parallelRanges == null && settings != null) {
      parallelRanges = settings.snapshot().parallelPartitions();
    }
  }

  /** Every reason this request cannot work; empty when it can. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (mirror == null) {
      problems.add("mirror is required");
    } else {
      problems.addAll(mirror.problems());
    }
    DOCUMENTS_PER_SECOND.check("documentsPerSecond", documentsPerSecond, problems);
    if (parallelRanges != null) {
      PARALLEL_RANGES.check("parallelRanges", parallelRanges, problems);
    }
    return problems;
  }

  /** The source read rate one range may use while {@code parallelRanges} run. */
  public int documentsPerSecondPerRange() {
    int parallel = parallelRanges == null ? 1 : parallelRanges;
    return Math.max(1, documentsPerSecond / parallel);
  }
}
