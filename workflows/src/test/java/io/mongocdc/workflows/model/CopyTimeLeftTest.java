package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The running copy's expected time left: documents left at the rate copied so far (issue 48, item 4). */
class CopyTimeLeftTest {

  private static final Checkpoint START = Checkpoint.atOperationTime(1_700_000_000, 1);
  private static final long T0 = 1_700_000_000_000L;

  /** A collection planned at {@code T0} with {@code estimated} documents in {@code partitions} partitions. */
  private static SnapshotProgress planned(String collection, long estimated, int partitions) {
    return SnapshotProgress.pending(collection, START)
        .planned(new SnapshotPlan(collection, partitions, range(partitions), 0, estimated), T0);
  }

  private static List<Integer> range(int partitions) {
    return java.util.stream.IntStream.range(0, partitions).boxed().toList();
  }

  private static SnapshotProgress copied(SnapshotProgress progress, long documents, long atMillis) {
    return progress.copied(new SnapshotPartitionCopied(progress.collection(), progress.partitionsDone(), documents,
        documents * 100, null, null), atMillis);
  }

  @Test
  void unknownUntilAPartitionHasFinished() {
    assertNull(CopyTimeLeft.seconds(List.of(SnapshotProgress.pending("orders", START)), T0 + 60_000),
        "not planned yet");
    assertNull(CopyTimeLeft.seconds(List.of(planned("orders", 1_000_000, 10)), T0 + 60_000),
        "planned, no partition finished: no rate to go by");
  }

  @Test
  void documentsLeftAtTheRateSoFar() {
    // 100 000 of 1 000 000 documents in 50 s: 2 000 a second, 900 000 left: 450 s.
    SnapshotProgress orders = copied(planned("orders", 1_000_000, 10), 100_000, T0 + 40_000);
    assertEquals(450L, CopyTimeLeft.seconds(List.of(orders), T0 + 50_000));
    // Later with nothing more copied, the rate falls and the time left grows.
    assertEquals(900L, CopyTimeLeft.seconds(List.of(orders), T0 + 100_000));
  }

  @Test
  void partitionsLeftCountWhenTheSourceEstimatedTooFew() {
    // The estimate said 100 000 but the first of 10 partitions held 50 000: 9 more like it are left.
    SnapshotProgress orders = copied(planned("orders", 100_000, 10), 50_000, T0 + 10_000);
    assertEquals(90L, CopyTimeLeft.seconds(List.of(orders), T0 + 10_000));
  }

  @Test
  void zeroWhenEveryCopyIsDoneOrNoneWasAskedFor() {
    SnapshotProgress orders = copied(planned("orders", 10, 1), 10, T0 + 5_000);
    assertTrue(orders.done());
    assertEquals(0L, CopyTimeLeft.seconds(List.of(orders), T0 + 9_000));
    assertEquals(0L, CopyTimeLeft.seconds(List.of(), T0));
  }

  @Test
  void collectionsDoneInTheSameCopyCountTowardsItsRateAndEarlierCopiesDoNot() {
    // A first snapshot planned orders and items at T0; orders finished, items has copied one of 4 partitions.
    SnapshotProgress orders = copied(planned("orders", 30_000, 1), 30_000, T0 + 30_000);
    SnapshotProgress items = copied(planned("items", 40_000, 4), 10_000, T0 + 40_000);
    // 40 000 documents in 40 s: 1 000 a second; 30 000 left.
    assertEquals(30L, CopyTimeLeft.seconds(List.of(orders, items), T0 + 40_000));

    // A copy of users from a day before (done long ago) changes nothing.
    SnapshotProgress users = SnapshotProgress.pending("users", START)
        .planned(new SnapshotPlan("users", 1, List.of(0), 0, 5), T0 - 86_400_000);
    users = copied(users, 5_000_000, T0 - 86_000_000);
    assertEquals(30L, CopyTimeLeft.seconds(List.of(users, orders, items), T0 + 40_000));
  }

  @Test
  void aCopyReplannedAfterContinueAsNewKeepsItsFirstPlanTime() {
    SnapshotProgress orders = copied(planned("orders", 1_000, 2), 500, T0 + 10_000);
    SnapshotProgress again = orders.planned(new SnapshotPlan("orders", 2, List.of(1), 500, 1_000), T0 + 20_000);
    assertEquals(T0, again.plannedAtMillis());
    assertEquals(20L, CopyTimeLeft.seconds(List.of(again), T0 + 20_000));
  }

  @Test
  void warnsWhenTheCopyIsExpectedToTakeMoreThanThreeQuartersOfTheHeadroom() {
    assertNull(CopyTimeLeft.warning(750L, 1_000L));
    assertTrue(CopyTimeLeft.warning(751L, 1_000L).contains("751 s"), "over three quarters");
    assertNull(CopyTimeLeft.warning(null, 1_000L), "unknown time left");
    assertNull(CopyTimeLeft.warning(5_000L, null), "unknown headroom");
  }
}
