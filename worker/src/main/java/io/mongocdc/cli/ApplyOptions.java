package io.mongocdc.cli;

import io.mongocdc.destination.PostgresSinkOptions;
import picocli.CommandLine.Option;

/** How a worker's destination applies batches: the options `worker` and `dev` share. */
final class ApplyOptions {

  @Option(names = "--apply-connections", paramLabel = "N",
      defaultValue = "${env:MONGO_CDC_APPLY_CONNECTIONS:-" + PostgresSinkOptions.DEFAULT_APPLY_CONNECTIONS + "}",
      description = "Destination connections that apply each batch in parallel, every document always on the same"
          + " one (env MONGO_CDC_APPLY_CONNECTIONS; default: ${DEFAULT-VALUE}).")
  int applyConnections = PostgresSinkOptions.DEFAULT_APPLY_CONNECTIONS;

  /** @throws CliException if a value cannot work */
  PostgresSinkOptions sinkOptions() {
    try {
      return PostgresSinkOptions.defaults().withApplyConnections(applyConnections);
    } catch (IllegalArgumentException e) {
      throw new CliException("--apply-connections must be at least 1, got " + applyConnections, ExitCodes.INVALID);
    }
  }
}
