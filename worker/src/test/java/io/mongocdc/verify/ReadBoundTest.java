package io.mongocdc.verify;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.snapshot.SnapshotPosition;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class ReadBoundTest {

  private static final BsonTimestamp T = new BsonTimestamp(1_700_000_000, 5);
  /** An event at T (KeyString: the cluster time, then more of the event's id). */
  private static final ResumeToken AT_T = ResumeToken.of(SnapshotPosition.tokenOf(StreamPosition.atOperationTime(T)).data()
      + "2B0229296E04");
  private static final ResumeToken AFTER_T = ResumeToken.of(SnapshotPosition.tokenOf(
      StreamPosition.atOperationTime(new BsonTimestamp(1_700_000_000, 6))).data() + "2B0229296E04");

  @Test
  void anOperationTimeBoundsEveryEventAtThatTimeAndNoLaterOne() {
    ResumeToken bound = ReadBound.of(StreamPosition.atOperationTime(T));
    assertTrue(AT_T.compareTo(bound) < 0);
    assertTrue(AFTER_T.compareTo(bound) > 0);
    assertFalse(ReadBound.passed(StreamPosition.after(AT_T), StreamPosition.atOperationTime(T)),
        "another event at T may not be applied yet");
    assertTrue(ReadBound.passed(StreamPosition.after(AFTER_T), StreamPosition.atOperationTime(T)));
    assertFalse(ReadBound.passed(null, StreamPosition.atOperationTime(T)));
  }

  @Test
  void aRepairSortsAfterEveryChangeItReadAndBeforeEveryLaterOne() {
    ResumeToken repair = ReadBound.repairPosition(StreamPosition.after(AT_T));
    assertTrue(repair.compareTo(AT_T) > 0);
    assertTrue(repair.compareTo(AFTER_T) < 0);
    assertTrue(ReadBound.passed(StreamPosition.after(AT_T), StreamPosition.after(AT_T)));
    ResumeToken repairAtTime = ReadBound.repairPosition(StreamPosition.atOperationTime(T));
    assertTrue(repairAtTime.compareTo(AT_T) > 0 && repairAtTime.compareTo(AFTER_T) < 0);
  }
}
