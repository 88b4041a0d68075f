package io.mongocdc.cli;

import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.ports.MirrorDestination;
import picocli.CommandLine.Option;

/** How a worker's destination applies batches: the options `worker` and `dev` share. */
final class ApplyOptions {

  @Option(names = "--apply-connections", paramLabel = "N",
      defaultValue = "${env:MONGO_CDC_APPLY_CONNECTIONS:-" + PostgresSinkOptions.DEFAULT_APPLY_CONNECTIONS + "}",
      description = "Destination connections that apply each batch in parallel, every document always on the same"
          + " one (env MONGO_CDC_APPLY_CONNECTIONS; default: ${DEFAULT-VALUE}).")
  int applyConnections = PostgresSinkOptions.DEFAULT_APPLY_CONNECTIONS;

  @Option(names = "--destination-connections", paramLabel = "N",
      defaultValue = "${env:MONGO_CDC_DESTINATION_CONNECTIONS:-" + PostgresSinkOptions.DEFAULT_CONNECTIONS + "}",
      description = "The worker's connections to each destination peer. A batch takes --apply-connections plus one"
          + " of them at once or waits its turn, so (N - " + PostgresSinkOptions.RESERVED_CONNECTIONS + ") / (lanes + 1)"
          + " mirrors' batches run at once (env MONGO_CDC_DESTINATION_CONNECTIONS; default: ${DEFAULT-VALUE}).")
  int destinationConnections = PostgresSinkOptions.DEFAULT_CONNECTIONS;

  /** @throws CliException if a value cannot work */
  PostgresSinkOptions sinkOptions() {
    if (applyConnections < 1) {
      throw new CliException("--apply-connections must be at least 1, got " + applyConnections, ExitCodes.INVALID);
    }
    int least = PostgresSinkOptions.RESERVED_CONNECTIONS + MirrorDestination.connectionsFor(applyConnections);
    if (destinationConnections < least) {
      throw new CliException("--destination-connections must be at least " + least + " with --apply-connections "
          + applyConnections + " (a batch's " + MirrorDestination.connectionsFor(applyConnections) + " and "
          + PostgresSinkOptions.RESERVED_CONNECTIONS + " for work outside batches), got " + destinationConnections,
          ExitCodes.INVALID);
    }
    return PostgresSinkOptions.defaults().withConnections(applyConnections, destinationConnections);
  }

  /** What the worker chose, for its start-up line. */
  static String describe(PostgresSinkOptions options) {
    return String.format("destination: %d connections per peer, %d apply lanes per batch: %d batches at once, the"
        + " others wait their turn", options.connections(), options.applyConnections(), options.batchesAtOnce());
  }
}
