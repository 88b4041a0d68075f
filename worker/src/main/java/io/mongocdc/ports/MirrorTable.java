package io.mongocdc.ports;

import java.util.Objects;

/**
 * A destination table as the catalog records it for its mirror: where it is (peer, schema,
 * unquoted name) and the collection it mirrors.
 *
 * @param destinationPeer the PostgreSQL peer's name
 * @param schema the table's schema
 * @param table the table's name, unquoted (as {@code TableNaming} makes it)
 * @param sourceNamespace {@code database.collection} it mirrors; empty if unknown
 */
public record MirrorTable(String destinationPeer, String schema, String table, String sourceNamespace) {

  public MirrorTable {
    Objects.requireNonNull(destinationPeer, "destinationPeer");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(table, "table");
    sourceNamespace = sourceNamespace == null ? "" : sourceNamespace;
  }

  /** Whether {@code other} is the same table (the source namespace aside). */
  public boolean sameTable(MirrorTable other) {
    return destinationPeer.equals(other.destinationPeer) && schema.equals(other.schema) && table.equals(other.table);
  }

  /** For messages: {@code shop.orders (schema public, peer warehouse-pg)}; a table name may hold dots. */
  public String describe() {
    return table + " (schema " + schema + ", peer " + destinationPeer + ")";
  }
}
