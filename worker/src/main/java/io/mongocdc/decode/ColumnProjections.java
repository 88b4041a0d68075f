package io.mongocdc.decode;

/** Which typed columns a namespace's table has: one rule for the decoder, the snapshot and the sink. */
@FunctionalInterface
public interface ColumnProjections {

  /** No typed columns anywhere. */
  ColumnProjections NONE = ns -> null;

  /** The projector of {@code ns}'s table, or null when it has no typed columns. */
  DocumentProjector of(Namespace ns);
}
