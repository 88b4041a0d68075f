package io.mongocdc.decode;

/**
 * Names the destination table a source namespace's records go to. The PostgreSQL destination's
 * naming (verbatim {@code db.collection}, shortened with a hash suffix past 63 bytes) is {@code
 * io.mongocdc.destination.TableNaming#instance()}.
 */
@FunctionalInterface
public interface DestinationTableResolver {

  /** The destination table for {@code source}. Must be deterministic and thread-safe. */
  String tableFor(Namespace source);

  /** Uses the source's {@code db.collection} as the table name, until the destination maps it. */
  static DestinationTableResolver sourceName() {
    return Namespace::fullName;
  }
}
