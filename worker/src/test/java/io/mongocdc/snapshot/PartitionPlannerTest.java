package io.mongocdc.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PartitionPlannerTest {

  private static final List<Function<Random, BsonValue>> SHAPES =
      List.of(RandomIds::objectId, RandomIds::number, RandomIds::string, RandomIds::mixed);

  @Test
  void sampleSizeIsTwentyPerPartitionWithinAFloorAndACap() {
    assertEquals(0, PartitionPlanner.sampleSizeFor(0, 100));
    assertEquals(0, PartitionPlanner.sampleSizeFor(100, 100));
    assertEquals(100, PartitionPlanner.sampleSizeFor(101, 100));
    assertEquals(200, PartitionPlanner.sampleSizeFor(1_000, 100));
    assertEquals(10_000, PartitionPlanner.sampleSizeFor(1_000_000_000_000L, 1_000));
    assertThrows(IllegalArgumentException.class, () -> PartitionPlanner.sampleSizeFor(10, 0));
    assertThrows(IllegalArgumentException.class, () -> PartitionPlanner.sampleSizeFor(-1, 10));
  }

  @Test
  void emptyTinyOrUnsampledCollectionsAreOnePartition() {
    List<BsonValue> ids = List.of(new BsonInt32(1), new BsonInt32(2));
    assertEquals(List.of(IdRange.whole()), PartitionPlanner.plan(0, List.of(), 10));
    assertEquals(List.of(IdRange.whole()), PartitionPlanner.plan(10, ids, 10));
    assertEquals(List.of(IdRange.whole()), PartitionPlanner.plan(1_000, List.of(), 10));
  }

  /** The core property: every id, sampled or not, of any type, falls in exactly one range. */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void everyIdIsInExactlyOneRangeAndPartitionsAreBalanced(long seed) {
    Random random = new Random(seed);
    for (Function<Random, BsonValue> shape : SHAPES) {
      List<BsonValue> ids = RandomIds.distinct(random, 500 + random.nextInt(3_000), shape);
      int perPartition = 20 + random.nextInt(200);

      List<IdRange> plan = PartitionPlanner.plan(ids.size(), ids, perPartition);

      int[] counts = countsPerRange(plan, ids);
      List<BsonValue> probes = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        probes.add(RandomIds.mixed(random));
      }
      probes.add(new BsonDouble(Double.NaN));
      probes.add(new BsonDouble(Double.POSITIVE_INFINITY));
      countsPerRange(plan, probes);
      long partitions = (ids.size() + perPartition - 1) / perPartition;
      assertTrue(plan.size() >= partitions / 2, plan.size() + " ranges for " + partitions + " partitions");
      for (int i = 0; i < plan.size(); i++) {
        if (plan.get(i).bracket() != null && !plan.get(i).bracket().splittable()) {
          continue; // never split, so as large as the bracket
        }
        assertTrue(counts[i] <= 3 * perPartition, plan.get(i).describe() + " holds " + counts[i]
            + " ids, target " + perPartition);
      }
    }
  }

  /** With a sample of a fifth of the ids, coverage still holds and no partition is wildly over. */
  @Test
  void aPartialSampleStillCoversEveryId() {
    Random random = new Random(99);
    for (Function<Random, BsonValue> shape : SHAPES) {
      List<BsonValue> ids = RandomIds.distinct(random, 5_000, shape);
      List<BsonValue> sample = ids.subList(0, PartitionPlanner.sampleSizeFor(ids.size(), 250));

      List<IdRange> plan = PartitionPlanner.plan(ids.size(), sample, 250);

      int[] counts = countsPerRange(plan, ids);
      for (int i = 0; i < plan.size(); i++) {
        assertTrue(counts[i] <= 5 * 250, plan.get(i).describe() + " holds " + counts[i]);
      }
    }
  }

  @Test
  void splittableBracketsShareThePartitionsByTheirShareOfTheSample() {
    Random random = new Random(5);
    List<BsonValue> ids = new ArrayList<>(RandomIds.distinct(random, 900, RandomIds::objectId));
    ids.addAll(RandomIds.distinct(random, 100, RandomIds::string));
    ids.add(new BsonDocument("k", new BsonInt32(1)));
    ids.add(new BsonMinKey());

    List<IdRange> plan = PartitionPlanner.plan(ids.size(), ids, 100);

    // 11 partitions: objectIds hold 900/1002 of the sample, so round(9.88) = 10 of them.
    assertEquals(10, plan.stream().filter(r -> r.bracket() == IdTypeBracket.OBJECT_ID).count());
    assertEquals(1, plan.stream().filter(r -> r.bracket() == IdTypeBracket.STRING).count());
    assertTrue(plan.contains(IdRange.of(IdTypeBracket.OBJECT, null, null)));
    assertTrue(plan.contains(IdRange.of(IdTypeBracket.MIN_KEY, null, null)));
    assertEquals(IdRange.restOf(List.of(IdTypeBracket.MIN_KEY, IdTypeBracket.STRING, IdTypeBracket.OBJECT,
        IdTypeBracket.OBJECT_ID)), plan.get(plan.size() - 1));
    assertEquals(1, plan.stream().filter(r -> r.bracket() == null).count());
  }

  @Test
  void typesMissingFromTheSampleGoToTheRestRange() {
    List<BsonValue> ids = RandomIds.distinct(new Random(3), 1_000, RandomIds::objectId);
    List<IdRange> plan = PartitionPlanner.plan(1_000, ids, 100);
    IdRange rest = plan.get(plan.size() - 1);
    assertEquals(IdRange.restOf(List.of(IdTypeBracket.OBJECT_ID)), rest);
    assertTrue(rest.contains(new BsonString("late string key")));
    assertTrue(rest.contains(new BsonInt64(42)));
    assertEquals(1, plan.stream().filter(r -> r.contains(new BsonInt64(42))).count());
  }

  @Test
  void rangesOfABracketChainFromOpenToOpen() {
    List<BsonValue> ids = RandomIds.distinct(new Random(8), 2_000, RandomIds::number);
    List<IdRange> numeric = PartitionPlanner.plan(2_000, ids, 100).stream()
        .filter(r -> r.bracket() == IdTypeBracket.NUMBER).toList();
    assertEquals(20, numeric.size());
    assertEquals(null, numeric.get(0).lower());
    assertEquals(null, numeric.get(numeric.size() - 1).upper());
    for (int i = 1; i < numeric.size(); i++) {
      assertEquals(numeric.get(i - 1).upper(), numeric.get(i).lower());
    }
  }

  /** 1, 1L and 1.0 are one value: a sample holding all three must not produce an empty range. */
  @Test
  void equalValuesOfDifferentTypesAndNaNsNeverBecomeBoundaries() {
    List<BsonValue> sample = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      sample.add(new BsonInt32(i));
      sample.add(new BsonInt64(i));
      sample.add(new BsonDouble(i));
      sample.add(new BsonDouble(Double.NaN));
    }
    List<IdRange> plan = PartitionPlanner.plan(10_000, sample, 10);
    List<IdRange> numeric = plan.stream().filter(r -> r.bracket() == IdTypeBracket.NUMBER).toList();
    assertEquals(50, numeric.size(), "at most one range per distinct sampled value");
    assertEquals(1, plan.stream().filter(r -> r.contains(new BsonDouble(Double.NaN))).count());
    assertTrue(numeric.get(0).contains(new BsonDouble(Double.NaN)));
  }

  /** Counts ids per range, failing if one is in none or in two. */
  private static int[] countsPerRange(List<IdRange> plan, List<BsonValue> ids) {
    int[] counts = new int[plan.size()];
    for (BsonValue id : ids) {
      int found = -1;
      for (int i = 0; i < plan.size(); i++) {
        if (plan.get(i).contains(id)) {
          // Messages as suppliers: built for every id, they cost more than the check itself.
          int earlier = found;
          int range = i;
          assertEquals(-1, found, () -> id + " is in " + (earlier < 0 ? "" : plan.get(earlier).describe()) + " and "
              + plan.get(range).describe());
          found = i;
        }
      }
      assertTrue(found >= 0, () -> id + " is in no range of " + plan.stream().map(IdRange::describe).toList());
      counts[found]++;
    }
    return counts;
  }
}
