package io.mongocdc.destination;

import io.mongocdc.decode.JsonbSanitizer;
import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.ColumnType;
import io.mongocdc.decode.TypedValues;
import java.util.List;
import java.util.UUID;

/**
 * Writes a record's typed column values, then its {@code _drift}, into a binary COPY row, each in
 * its column type's binary form (the values are of the kinds {@link TypedValues} names).
 */
final class TypedColumnCopy {

  private TypedColumnCopy() {}

  /** Fields a row gets for {@code columns}: one each and {@code _drift}; 0 without typed columns. */
  static int fields(List<ColumnProjection> columns) {
    return columns.isEmpty() ? 0 : columns.size() + 1;
  }

  /** Writes the values (all NULL when {@code typed} is null or not of these columns) and the drift. */
  static void put(BinaryCopyBuffer buffer, List<ColumnProjection> columns, TypedValues typed) {
    if (columns.isEmpty()) {
      return;
    }
    boolean usable = typed != null && typed.values().length == columns.size();
    for (int i = 0; i < columns.size(); i++) {
      Object value = usable ? typed.values()[i] : null;
      if (value == null) {
        buffer.putNull();
      } else {
        put(buffer, columns.get(i).type(), value);
      }
    }
    if (usable && typed.drift() != null) {
      buffer.putJsonb(typed.drift());
    } else {
      buffer.putNull();
    }
  }

  private static void put(BinaryCopyBuffer buffer, ColumnType type, Object value) {
    switch (type) {
      case TEXT -> buffer.putText((String) value);
      case BIGINT -> buffer.putBigint((Long) value);
      case NUMERIC -> buffer.putNumeric(value);
      case DOUBLE_PRECISION -> buffer.putDouble((Double) value);
      case BOOLEAN -> buffer.putBoolean((Boolean) value);
      case TIMESTAMPTZ -> buffer.putTimestamptzMicros((Long) value);
      case UUID -> buffer.putUuid((UUID) value);
      case JSONB -> buffer.putJsonb(JsonbSanitizer.sanitize((String) value));
      case TEXT_ARRAY -> buffer.putTextArray((String[]) value);
    }
  }
}
