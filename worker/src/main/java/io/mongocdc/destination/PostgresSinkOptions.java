package io.mongocdc.destination;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Settings of the PostgreSQL destination.
 *
 * @param schema the schema destination tables live in (created if missing). Default {@code
 *     public}.
 * @param deleteMode soft (flag) or hard (remove) deletes. Default {@link DeleteMode#SOFT}.
 * @param mergeWorkMem {@code work_mem} for the merge of a batch (it sorts the batch's keys and
 *     positions), e.g. {@code 64MB}; null keeps the server's. Default {@code 64MB}.
 * @param tempBuffers {@code temp_buffers} of the sink's session (the staging tables are
 *     temporary tables), e.g. {@code 64MB}; null keeps the server's. Default {@code 64MB}.
 */
public record PostgresSinkOptions(
    String schema, DeleteMode deleteMode, String mergeWorkMem, String tempBuffers) {

  private static final Pattern MEMORY = Pattern.compile("[0-9]+ ?(kB|MB|GB)?");

  public PostgresSinkOptions {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(deleteMode, "deleteMode must be SOFT or HARD");
    DestinationTable.requireIdentifier("schema", schema);
    requireMemory("mergeWorkMem", mergeWorkMem);
    requireMemory("tempBuffers", tempBuffers);
  }

  public static PostgresSinkOptions defaults() {
    return new PostgresSinkOptions("public", DeleteMode.SOFT, "64MB", "64MB");
  }

  public PostgresSinkOptions withSchema(String value) {
    return new PostgresSinkOptions(value, deleteMode, mergeWorkMem, tempBuffers);
  }

  public PostgresSinkOptions withDeleteMode(DeleteMode value) {
    return new PostgresSinkOptions(schema, value, mergeWorkMem, tempBuffers);
  }

  private static void requireMemory(String name, String value) {
    if (value != null && !MEMORY.matcher(value).matches()) {
      throw new IllegalArgumentException(
          name + " must be a PostgreSQL memory size like 64MB, got '" + value + "'");
    }
  }
}
