package io.mongocdc.source.mongo;

import java.util.List;

/**
 * What validating a source found.
 *
 * @param topology "replica set <name>", "sharded cluster" or "standalone"
 * @param serverVersion the server's version string
 * @param oplogWindow the oplog's span, or null if it could not be read (no access to {@code local})
 * @param problems reasons the mirror cannot work; empty when it can
 * @param warnings things that work but deserve attention
 */
public record SourceValidationReport(
    String topology, String serverVersion, OplogWindow oplogWindow, List<String> problems, List<String> warnings) {

  public SourceValidationReport {
    problems = List.copyOf(problems);
    warnings = List.copyOf(warnings);
  }

  /** @throws SourceValidationException listing every problem, if there is any */
  public SourceValidationReport requireUsable() {
    if (!problems.isEmpty()) {
      throw new SourceValidationException(problems);
    }
    return this;
  }
}
