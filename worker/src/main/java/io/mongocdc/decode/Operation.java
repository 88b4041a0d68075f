package io.mongocdc.decode;

/** The data-changing operation types that become records. */
public enum Operation {
  INSERT("insert"),
  UPDATE("update"),
  REPLACE("replace"),
  DELETE("delete");

  private final String operationType;

  Operation(String operationType) {
    this.operationType = operationType;
  }

  /** The {@code operationType} value MongoDB writes in the change event. */
  public String operationType() {
    return operationType;
  }

  /** The operation for an event's {@code operationType}, or null if it is not a data change. */
  public static Operation fromOperationType(String operationType) {
    for (Operation op : values()) {
      if (op.operationType.equals(operationType)) {
        return op;
      }
    }
    return null;
  }
}
