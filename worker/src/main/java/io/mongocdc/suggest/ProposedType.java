package io.mongocdc.suggest;

import java.util.EnumSet;
import java.util.Set;

/**
 * The PostgreSQL type proposed for a path from the kinds of value seen there, nulls aside (a
 * typed column is nullable). One kind maps to its type; ints and longs share {@code bigint};
 * whole numbers with doubles take {@code double precision}, with decimals {@code numeric}; any
 * other mix, and values with no scalar type of their own, take {@code jsonb}, which holds them
 * all as the document does.
 *
 * @param type the PostgreSQL type, or null when no column is proposed
 * @param note why, when it is not the plain mapping of one kind (or null)
 */
public record ProposedType(String type, String note) {

  public static final String TEXT = "text";
  public static final String BIGINT = "bigint";
  public static final String NUMERIC = "numeric";
  public static final String DOUBLE_PRECISION = "double precision";
  public static final String BOOLEAN = "boolean";
  public static final String TIMESTAMPTZ = "timestamptz";
  public static final String UUID = "uuid";
  public static final String JSONB = "jsonb";
  public static final String TEXT_ARRAY = "text[]";

  private static final Set<ValueKind> WHOLE = EnumSet.of(ValueKind.INT, ValueKind.LONG);
  private static final Set<ValueKind> NUMBERS = EnumSet.of(ValueKind.INT, ValueKind.LONG, ValueKind.DOUBLE,
      ValueKind.DECIMAL);
  private static final Set<ValueKind> STRING_ARRAYS = EnumSet.of(ValueKind.STRING_ARRAY, ValueKind.EMPTY_ARRAY);

  /**
   * @param seen the kinds seen at the path (nulls included or not)
   * @param descended whether the path's documents were walked into (their fields are proposed
   *     instead); false at the maximum depth
   */
  public static ProposedType of(Set<ValueKind> seen, boolean descended) {
    EnumSet<ValueKind> kinds = seen.isEmpty() ? EnumSet.noneOf(ValueKind.class) : EnumSet.copyOf(seen);
    kinds.remove(ValueKind.NULL);
    if (kinds.isEmpty()) {
      return new ProposedType(null, "only null seen");
    }
    if (kinds.size() == 1) {
      return single(kinds.iterator().next(), descended);
    }
    if (WHOLE.containsAll(kinds)) {
      return new ProposedType(BIGINT, null);
    }
    if (NUMBERS.containsAll(kinds)) {
      return kinds.contains(ValueKind.DECIMAL)
          ? new ProposedType(NUMERIC, "numbers of several types, decimals among them")
          : new ProposedType(DOUBLE_PRECISION, "whole numbers and doubles");
    }
    if (STRING_ARRAYS.containsAll(kinds)) {
      return new ProposedType(TEXT_ARRAY, null);
    }
    return new ProposedType(JSONB, "mixed types: kept as JSON");
  }

  private static ProposedType single(ValueKind kind, boolean descended) {
    return switch (kind) {
      case STRING -> new ProposedType(TEXT, null);
      case INT, LONG -> new ProposedType(BIGINT, null);
      case DOUBLE -> new ProposedType(DOUBLE_PRECISION, null);
      case DECIMAL -> new ProposedType(NUMERIC, null);
      case BOOL -> new ProposedType(BOOLEAN, null);
      case DATE -> new ProposedType(TIMESTAMPTZ, null);
      case OBJECT_ID -> new ProposedType(TEXT, "ObjectId as its 24 hex digits");
      case UUID -> new ProposedType(UUID, null);
      case STRING_ARRAY -> new ProposedType(TEXT_ARRAY, null);
      case DOCUMENT -> descended
          ? new ProposedType(null, "a document: its fields follow")
          : new ProposedType(JSONB, "a document at the maximum depth");
      case EMPTY_ARRAY -> new ProposedType(JSONB, "only empty arrays seen");
      case ARRAY -> new ProposedType(JSONB, "an array (not of strings)");
      case BINARY, OTHER -> new ProposedType(JSONB, "no scalar type: kept as JSON");
      case NULL -> throw new IllegalArgumentException("null has no type");
    };
  }
}
