package io.mongocdc.snapshot;

/** STUB: replaced by the partition-planning work. MongoDB's comparison type brackets. */
public enum IdTypeBracket {
  NUMBER, STRING, OBJECT_ID, DATE
}
