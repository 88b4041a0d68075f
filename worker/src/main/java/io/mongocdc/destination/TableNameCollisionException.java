package io.mongocdc.destination;

import io.mongocdc.decode.Namespace;

/** Two source collections would be written to the same destination table. */
public class TableNameCollisionException extends IllegalArgumentException {

  private final Namespace first;
  private final Namespace second;
  private final String table;

  public TableNameCollisionException(Namespace first, Namespace second, String table) {
    super(
        "collections "
            + first.fullName()
            + " and "
            + second.fullName()
            + " would both be written to destination table "
            + TableNaming.quote(table)
            + "; exclude one of them or rename one collection");
    this.first = first;
    this.second = second;
    this.table = table;
  }

  public Namespace first() {
    return first;
  }

  public Namespace second() {
    return second;
  }

  public String table() {
    return table;
  }
}
