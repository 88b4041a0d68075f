package io.mongocdc.snapshot;

import java.util.Collection;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * STUB: replaced by the partition-planning work. One partition of a collection's {@code _id}
 * space.
 */
public record IdRange(IdTypeBracket bracket, BsonValue lower, BsonValue upper, java.util.List<IdTypeBracket> otherThan) {

  public static IdRange whole() {
    throw new UnsupportedOperationException("stub");
  }

  public static IdRange of(IdTypeBracket bracket, BsonValue lowerInclusive, BsonValue upperExclusive) {
    throw new UnsupportedOperationException("stub");
  }

  public static IdRange restOf(Collection<IdTypeBracket> planned) {
    throw new UnsupportedOperationException("stub");
  }

  public boolean contains(BsonValue id) {
    throw new UnsupportedOperationException("stub");
  }

  public BsonDocument toFilter() {
    throw new UnsupportedOperationException("stub");
  }

  public String toJson() {
    throw new UnsupportedOperationException("stub");
  }

  public static IdRange fromJson(String json) {
    throw new UnsupportedOperationException("stub");
  }

  public String describe() {
    throw new UnsupportedOperationException("stub");
  }
}
