package io.mongocdc.decode;

/**
 * How BSON values become JSON in the destination's {@code doc} column. The type-by-type rules
 * are in {@code docs/json-rendering.md}.
 */
public enum JsonRenderMode {

  /**
   * MongoDB Extended JSON v2, relaxed format: lossless except where the specification itself
   * drops type information (int32 vs int64), so the driver's JSON reader reads it back to an
   * equal document. The default.
   */
  RELAXED,

  /**
   * Plain JSON for analysts: ObjectIds as hex strings, dates as ISO-8601 strings, Decimal128
   * and non-finite doubles as strings, binary as base64 (UUIDs in their usual text form). Loses
   * type information by design.
   */
  SIMPLIFIED
}
