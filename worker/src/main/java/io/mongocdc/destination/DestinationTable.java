package io.mongocdc.destination;

import io.mongocdc.decode.Namespace;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/** A destination table: the collection it mirrors and its schema-qualified name. */
public record DestinationTable(Namespace source, String schema, String name) {

  public DestinationTable {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(name, "name");
    requireIdentifier("schema", schema);
    requireIdentifier("table", name);
  }

  /** {@code "schema"."table"}, quoted. */
  public String qualifiedName() {
    return TableNaming.qualified(schema, name);
  }

  static void requireIdentifier(String what, String identifier) {
    if (identifier.isEmpty()) {
      throw new IllegalArgumentException(what + " name cannot be empty");
    }
    if (identifier.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(what + " name cannot contain NUL: " + identifier);
    }
    int bytes = identifier.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > TableNaming.MAX_IDENTIFIER_BYTES) {
      throw new IllegalArgumentException(
          what
              + " name "
              + TableNaming.quote(identifier)
              + " is "
              + bytes
              + " bytes long; PostgreSQL would truncate it to "
              + TableNaming.MAX_IDENTIFIER_BYTES
              + " (use TableNaming to shorten it)");
    }
  }
}
