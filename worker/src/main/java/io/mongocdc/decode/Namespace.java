package io.mongocdc.decode;

import java.util.Objects;

/** A MongoDB namespace: database and collection (collection is null for database-level events). */
public record Namespace(String database, String collection) {

  public Namespace {
    Objects.requireNonNull(database, "database");
  }

  /** {@code db.collection}, or just {@code db} for a database-level namespace. */
  public String fullName() {
    return collection == null ? database : database + "." + collection;
  }

  @Override
  public String toString() {
    return fullName();
  }
}
