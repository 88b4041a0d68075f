package io.mongocdc.snapshot;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonValue;

/**
 * Splits a collection's {@code _id} space into partitions of about {@code documentsPerPartition}
 * documents each, from a random sample of its {@code _id}s.
 *
 * <p>Boundaries are quantiles of the sample, per type bracket. This works the same for every
 * {@code _id} shape (ObjectId, counters, UUIDs, natural string keys, mixtures) and follows the
 * real distribution. Interpolating between the ObjectId timestamps of the smallest and largest
 * {@code _id} would assume documents were inserted at a constant rate; real collections have
 * bursts, quiet years and bulk imports, so equal time slices can differ in size by orders of
 * magnitude, and numeric or string keys have no timestamp at all.
 *
 * <p>The result always covers every possible {@code _id} exactly once: each bracket seen in the
 * sample is covered by ranges from "open below" to "open above" with shared boundaries, brackets
 * the planner does not split get one whole-bracket range, and one final range takes every
 * bracket not seen (documents inserted after sampling, or too rare to be sampled).
 */
public final class PartitionPlanner {

  /**
   * Sampled {@code _id}s per planned partition. A partition then holds about 20 sample points,
   * so its size is off by about 1/sqrt(20), roughly 22%, from the target.
   */
  static final int SAMPLES_PER_PARTITION = 20;
  /** Below this the quantiles of a few partitions are too coarse. */
  static final int MIN_SAMPLE = 100;
  /**
   * {@code $sample} must stay cheap: below 5% of the collection the server uses a random cursor,
   * above it a full scan and sort. 10,000 ids is at most a few hundred KB to plan with, and
   * limits a collection to about 10,000 partitions, far more than a worker pool copies at once.
   */
  static final int MAX_SAMPLE = 10_000;

  private PartitionPlanner() {}

  /** The number of partitions the planner aims for: at least one. */
  public static long partitionsFor(long estimatedCount, int documentsPerPartition) {
    if (documentsPerPartition <= 0) {
      throw new IllegalArgumentException("documentsPerPartition must be positive, not " + documentsPerPartition);
    }
    if (estimatedCount < 0) {
      throw new IllegalArgumentException("estimatedCount must not be negative, not " + estimatedCount);
    }
    return Math.max(1, (estimatedCount + documentsPerPartition - 1) / documentsPerPartition);
  }

  /**
   * How many {@code _id}s to sample: 0 when one partition will do (no sample needed), else
   * min(max(20 per partition, 100), 10,000).
   */
  public static int sampleSizeFor(long estimatedCount, int documentsPerPartition) {
    long partitions = partitionsFor(estimatedCount, documentsPerPartition);
    if (partitions <= 1) {
      return 0;
    }
    return (int) Math.min(Math.max(partitions * SAMPLES_PER_PARTITION, MIN_SAMPLE), MAX_SAMPLE);
  }

  /**
   * Disjoint ranges covering every {@code _id}: for each bracket in the sample, in sort order,
   * its ranges (several if it is splittable and has its share of partitions, else one), then
   * the rest. A single {@link IdRange#whole()} when one partition
   * will do or there is no sample.
   */
  public static List<IdRange> plan(long estimatedCount, List<BsonValue> sampledIds, int documentsPerPartition) {
    long partitions = partitionsFor(estimatedCount, documentsPerPartition);
    if (partitions <= 1 || sampledIds.isEmpty()) {
      return List.of(IdRange.whole());
    }
    Map<IdTypeBracket, List<BsonValue>> byBracket = new EnumMap<>(IdTypeBracket.class);
    for (BsonValue id : sampledIds) {
      byBracket.computeIfAbsent(IdTypeBracket.of(id), b -> new ArrayList<>()).add(id);
    }
    List<IdRange> ranges = new ArrayList<>();
    for (Map.Entry<IdTypeBracket, List<BsonValue>> entry : byBracket.entrySet()) {
      IdTypeBracket bracket = entry.getKey();
      if (bracket.splittable()) {
        long share = Math.max(1, Math.round((double) partitions * entry.getValue().size() / sampledIds.size()));
        ranges.addAll(split(bracket, entry.getValue(), share));
      } else {
        ranges.add(IdRange.of(bracket, null, null));
      }
    }
    ranges.add(IdRange.restOf(byBracket.keySet()));
    return List.copyOf(ranges);
  }

  /**
   * At most {@code share} ranges covering the whole bracket, cut at quantiles of the distinct
   * sampled values. NaN is never a boundary (the server never range-matches it); it falls in the
   * first range.
   */
  private static List<IdRange> split(IdTypeBracket bracket, List<BsonValue> sample, long share) {
    List<BsonValue> distinct = distinctSorted(sample);
    int count = (int) Math.min(share, Math.max(1, distinct.size()));
    List<IdRange> ranges = new ArrayList<>(count);
    BsonValue lower = null;
    for (int i = 1; i < count; i++) {
      // i * size / count rises by at least 1 per step since count <= size: boundaries strictly increase.
      BsonValue boundary = distinct.get((int) ((long) i * distinct.size() / count));
      ranges.add(IdRange.of(bracket, lower, boundary));
      lower = boundary;
    }
    ranges.add(IdRange.of(bracket, lower, null));
    return ranges;
  }

  private static List<BsonValue> distinctSorted(List<BsonValue> sample) {
    List<BsonValue> sorted = new ArrayList<>(sample.size());
    for (BsonValue id : sample) {
      if (!BsonIdOrder.isNaN(id)) {
        sorted.add(id);
      }
    }
    sorted.sort(BsonIdOrder.INSTANCE);
    List<BsonValue> distinct = new ArrayList<>(sorted.size());
    for (BsonValue id : sorted) {
      if (distinct.isEmpty() || BsonIdOrder.INSTANCE.compare(distinct.get(distinct.size() - 1), id) != 0) {
        distinct.add(id);
      }
    }
    return distinct;
  }
}
