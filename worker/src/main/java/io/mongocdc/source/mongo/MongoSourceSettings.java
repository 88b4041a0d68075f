package io.mongocdc.source.mongo;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a mirror reads from MongoDB, and how. Validated when built, with messages naming the
 * setting.
 *
 * @param database the database to watch, or null to watch the whole deployment
 * @param collections the watched collections as {@code db.collection}; at least one
 * @param excludedOperations operation types ({@code operationType}) the server filters out of the
 *     watched collections' events before sending them
 * @param cursorBatchSize events per server batch (0: the server's default). Default 0
 * @param maxAwaitTime how long one getMore waits for events before returning an empty batch
 *     (and a fresh post-batch token). Default 1 s
 * @param splitLargeEvents ask the server to split events over 16 MiB with
 *     {@code $changeStreamSplitLargeEvent} and reassemble them (MongoDB 6.0.9+ / 7.0+). Default off
 * @param fullDocumentBeforeChange whether events carry pre-images. Default {@link PreImageMode#OFF}
 */
public record MongoSourceSettings(
    String database,
    List<String> collections,
    Set<String> excludedOperations,
    int cursorBatchSize,
    Duration maxAwaitTime,
    boolean splitLargeEvents,
    PreImageMode fullDocumentBeforeChange) {

  public static final Duration DEFAULT_MAX_AWAIT_TIME = Duration.ofSeconds(1);

  public MongoSourceSettings {
    if (collections == null || collections.isEmpty()) {
      throw new IllegalArgumentException("collections must name at least one db.collection");
    }
    for (String name : collections) {
      int dot = name == null ? -1 : name.indexOf('.');
      if (dot <= 0 || dot == name.length() - 1) {
        throw new IllegalArgumentException("collection '" + name + "' must be written as db.collection");
      }
      if (database != null && !name.substring(0, dot).equals(database)) {
        throw new IllegalArgumentException(
            "collection '" + name + "' is not in the watched database '" + database + "'");
      }
    }
    collections = List.copyOf(collections);
    // In the given order, so the pipeline a mirror sends is the same every time.
    excludedOperations = excludedOperations == null ? Set.of()
        : Collections.unmodifiableSet(new LinkedHashSet<>(excludedOperations));
    if (cursorBatchSize < 0) {
      throw new IllegalArgumentException("cursorBatchSize must be at least 0, got " + cursorBatchSize);
    }
    if (maxAwaitTime == null || maxAwaitTime.isNegative() || maxAwaitTime.isZero()) {
      throw new IllegalArgumentException("maxAwaitTime must be a positive duration, got " + maxAwaitTime);
    }
    Objects.requireNonNull(fullDocumentBeforeChange, "fullDocumentBeforeChange must be OFF, WHEN_AVAILABLE or REQUIRED");
  }

  /** Watches {@code collections} (all in one database, or across the deployment) with defaults. */
  public static MongoSourceSettings of(String database, List<String> collections) {
    return new MongoSourceSettings(database, collections, Set.of(), 0,
        DEFAULT_MAX_AWAIT_TIME, false, PreImageMode.OFF);
  }
}
