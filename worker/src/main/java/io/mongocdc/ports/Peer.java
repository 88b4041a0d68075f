package io.mongocdc.ports;

import io.mongocdc.secrets.Redaction;

import java.util.Objects;

/**
 * A peer as the worker knows it: a name operators use, and the connection string (with
 * credentials) only the worker holds. {@link #toString()} never shows the connection string.
 */
public record Peer(String name, String connectionString) {

  public Peer {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(connectionString, "connectionString");
  }

  @Override
  public String toString() {
    return "Peer[" + name + ", " + Redaction.redact(connectionString) + "]";
  }
}
