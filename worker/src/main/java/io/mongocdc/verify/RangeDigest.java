package io.mongocdc.verify;

import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.BsonValue;

/**
 * What one side holds in one {@code _id} range: its documents' count, the order-independent sum
 * of their fingerprints, and each key's fingerprint, to narrow a difference down to the
 * {@code _id}s. Not thread-safe: one reader fills it.
 */
public final class RangeDigest {

  /**
   * One document of the range.
   *
   * @param id the {@code _id} value (to read it again from the source)
   * @param fingerprint see {@link DocumentFingerprint}
   * @param position the position the destination row carries; null on the source side
   */
  public record Entry(BsonValue id, long fingerprint, String position) {}

  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private long hash;

  /** Adds a document; a key seen again replaces its first entry (it cannot happen on either side). */
  public void add(String key, BsonValue id, String json, String position) {
    Entry entry = new Entry(id, DocumentFingerprint.of(key, json), position);
    Entry previous = entries.put(key, entry);
    if (previous != null) {
      hash -= previous.fingerprint();
    }
    hash += entry.fingerprint();
  }

  public long count() {
    return entries.size();
  }

  /** The sum of the fingerprints, modulo 2^64: equal sets of documents give equal hashes. */
  public long hash() {
    return hash;
  }

  public Map<String, Entry> entries() {
    return entries;
  }

  /** True if both sides hold the same documents, as far as count and hash can tell. */
  public boolean sameAs(RangeDigest other) {
    return count() == other.count() && hash() == other.hash();
  }
}
