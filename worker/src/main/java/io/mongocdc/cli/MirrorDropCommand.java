package io.mongocdc.cli;

import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.ports.MirrorTable;
import io.mongocdc.destination.PostgresSinkOptions;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code mirror drop}: terminates the workflow; with {@code --drop-tables} also drops the tables
 * recorded for the mirror and forgets its catalog rows. Everything that could fail for want of
 * access (the catalog, the peers, the destination) is checked before the workflow is terminated,
 * and the catalog rows go last, so a drop that failed half-way can be run again to finish.
 */
@Command(name = "drop", mixinStandardHelpOptions = true,
    description = "Drop a mirror: terminate its workflow; with --drop-tables also drop its destination tables and catalog rows.")
final class MirrorDropCommand extends MirrorSubcommand {

  @Option(names = "--drop-tables", description = "Also drop the destination tables and the mirror's catalog rows.")
  boolean dropTables;

  /** For --drop-tables. */
  @Mixin CatalogAccessOptions catalog;


  MirrorDropCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    if (!dropTables) {
      mirror.untyped(client).terminate("dropped by mongo-cdc mirror drop");
      out.printf("terminated workflow %s%n", mirror.workflowId());
      return;
    }
    String catalogUrl = catalog.requireCatalogUrl("--drop-tables");
    WorkerPorts ports;
    TablesToDrop drop;
    try {
      ports = context.ports().create(catalogUrl, catalog.peers.registry(context.environment()),
          PostgresSinkOptions.defaults());
      drop = TablesToDrop.of(mirror.name, ports);
      drop.destinationPeers().forEach(ports.destination()::checkReachable);
    } catch (RuntimeException e) {
      CliException explained = Failures.explain(e, mirror.name, mirror.temporal);
      throw new CliException(explained.getMessage() + "; nothing was terminated or dropped", explained.exitCode());
    }
    boolean terminated = MirrorStop.stopIfRunning(mirror, client, "dropped by mongo-cdc mirror drop");
    out.printf(terminated ? "terminated workflow %s%n" : "workflow %s is not running; nothing to terminate%n",
        mirror.workflowId());
    if (drop.nothing()) {
      out.printf("mirror %s: nothing left to drop (no catalog rows, no recorded tables)%n", mirror.name);
      return;
    }
    ports.destination().dropTables(drop.tables());
    for (MirrorTable table : drop.tables()) {
      out.printf("dropped destination table %s%n", table.describe());
    }
    ports.catalog().forget(mirror.name);
    out.printf("dropped the destination tables (%d) and catalog rows of mirror %s%n", drop.tables().size(), mirror.name);
  }
}
