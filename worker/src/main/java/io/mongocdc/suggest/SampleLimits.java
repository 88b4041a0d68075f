package io.mongocdc.suggest;

/**
 * How much of a collection {@code mongo-cdc mirror suggest-columns} reads and how deep it looks.
 * The sample is bounded so the read stays cheap on the source: MongoDB's {@code $sample} picks
 * documents with a random cursor when the size is under 5% of the collection, and otherwise
 * scans and sorts it.
 *
 * @param sampleSize documents to sample, 1 to {@value #MAX_SAMPLE_SIZE}
 * @param maxDepth path segments to walk into, 1 to {@value #MAX_DEPTH}: a document at this
 *     depth is proposed as one {@code jsonb} column rather than walked into
 */
public record SampleLimits(int sampleSize, int maxDepth) {

  public static final int DEFAULT_SAMPLE_SIZE = 1_000;
  public static final int MAX_SAMPLE_SIZE = 10_000;
  public static final int DEFAULT_MAX_DEPTH = 3;
  public static final int MAX_DEPTH = 20;

  /** @throws IllegalArgumentException naming the value out of bounds and the bounds */
  public SampleLimits {
    if (sampleSize < 1 || sampleSize > MAX_SAMPLE_SIZE) {
      throw new IllegalArgumentException("--sample-size must be from 1 to " + MAX_SAMPLE_SIZE
          + " (a bounded $sample keeps the read cheap on the source), got " + sampleSize);
    }
    if (maxDepth < 1 || maxDepth > MAX_DEPTH) {
      throw new IllegalArgumentException("--max-depth must be from 1 to " + MAX_DEPTH + ", got " + maxDepth);
    }
  }

  public static SampleLimits defaults() {
    return new SampleLimits(DEFAULT_SAMPLE_SIZE, DEFAULT_MAX_DEPTH);
  }
}
