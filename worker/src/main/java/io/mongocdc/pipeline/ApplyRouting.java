package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;

/** Which apply lane a record goes to. */
public final class ApplyRouting {

  private ApplyRouting() {}

  /**
   * The lane of a record, by its table and key: every record of one document goes to one lane,
   * so a document's records stay in source order on one connection and no two lanes ever write
   * the same row (their transactions cannot wait on each other's row locks).
   */
  public static int laneOf(ChangeRecord record, int laneCount) {
    return Math.floorMod(31 * record.table().hashCode() + record.key().hashCode(), laneCount);
  }
}
