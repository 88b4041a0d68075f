package io.mongocdc.verify;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonValue;

/**
 * One {@code _id} whose document differs between source and destination.
 *
 * @param key the destination's key text
 * @param id the {@code _id} value
 * @param kind how it differs
 */
public record Divergence(String key, BsonValue id, Kind kind) {

  public enum Kind {
    /** The source has it, the destination has no live row. */
    MISSING,
    /** The destination has a live row, the source has no such document. */
    EXTRA,
    /** Both have it, with different documents. */
    DIFFERENT
  }

  /** The keys whose entries differ between the two digests, in the source's order then the destination's. */
  public static List<Divergence> between(RangeDigest source, RangeDigest destination) {
    List<Divergence> found = new ArrayList<>();
    for (Map.Entry<String, RangeDigest.Entry> entry : source.entries().entrySet()) {
      RangeDigest.Entry row = destination.entries().get(entry.getKey());
      if (row == null) {
        found.add(new Divergence(entry.getKey(), entry.getValue().id(), Kind.MISSING));
      } else if (row.fingerprint() != entry.getValue().fingerprint()) {
        found.add(new Divergence(entry.getKey(), entry.getValue().id(), Kind.DIFFERENT));
      }
    }
    for (Map.Entry<String, RangeDigest.Entry> row : destination.entries().entrySet()) {
      if (!source.entries().containsKey(row.getKey())) {
        found.add(new Divergence(row.getKey(), row.getValue().id(), Kind.EXTRA));
      }
    }
    return found;
  }
}
