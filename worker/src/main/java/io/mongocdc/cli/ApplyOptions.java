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
      defaultValue = "${env:MONGO_CDC_DESTINATION_CONNECTIONS}",
      description = "The worker's connections to each destination peer. A batch takes --apply-connections plus one"
          + " of them at once or waits its turn, so (N - " + PostgresSinkOptions.RESERVED_CONNECTIONS
          + ") / (lanes + 1) mirrors' batches run at once (env MONGO_CDC_DESTINATION_CONNECTIONS; default: room for"
          + " one batch per processor, at least 2, and for one snapshot partition more).")
  Integer destinationConnections;

  /** @throws CliException if a value cannot work */
  PostgresSinkOptions sinkOptions() {
    if (applyConnections < 1) {
      throw new CliException("--apply-connections must be at least 1, got " + applyConnections, ExitCodes.INVALID);
    }
    int pool = destinationConnections != null ? destinationConnections
        : PostgresSinkOptions.defaultPool(applyConnections);
    int least = PostgresSinkOptions.poolFor(1, applyConnections);
    if (pool < least) {
      throw new CliException("--destination-connections must be at least " + least + " with --apply-connections "
          + applyConnections + " (a batch's " + MirrorDestination.connectionsFor(applyConnections) + " and "
          + PostgresSinkOptions.RESERVED_CONNECTIONS + " for work outside batches), got " + pool, ExitCodes.INVALID);
    }
    return PostgresSinkOptions.defaults().withConnections(applyConnections, pool);
  }

  /**
   * What the worker chose, for its start-up line, with a warning when its activity slots cannot
   * run as many batches as its connections serve.
   */
  static String describe(PostgresSinkOptions options, int activitySlots) {
    String chosen = String.format("destination: %d connections per peer, %d apply lanes per batch: %d mirrors' batches"
        + " at once per peer, the others take turns", options.connections(), options.applyConnections(),
        options.batchesAtOnce());
    if (activitySlots < options.batchesAtOnce()) {
      chosen += String.format("%nWARNING: --max-concurrent-activities %d runs fewer batches than that: raise it, or"
          + " lower --destination-connections", activitySlots);
    }
    return chosen;
  }
}
