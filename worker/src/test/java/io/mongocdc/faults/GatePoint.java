package io.mongocdc.faults;

/** Where a gate stops the mirror. */
enum GatePoint {
  /** The change stream's reader, before it yields event number {@code at}. */
  STREAM,
  /** A partition's copy, at the {@code nth} document of the {@code open}-th open of {@code collection}. */
  COPY,
  /** A partition's copy, right after the {@code open}-th partition was recorded done in the catalog. */
  RECORDED_DONE
}
