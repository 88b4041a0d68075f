package io.mongocdc.cli;

import io.mongocdc.activities.ConfiguredPeerRegistry;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.destination.PostgresSinkOptions;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "drop", mixinStandardHelpOptions = true,
    description = "Drop a mirror: terminate its workflow; with --drop-tables also drop its destination tables and catalog rows.")
final class MirrorDropCommand extends MirrorSubcommand {

  @Option(names = "--drop-tables", description = "Also drop the destination tables and the mirror's catalog rows.")
  boolean dropTables;

  @Option(names = "--catalog-url", paramLabel = "JDBC_URL", defaultValue = "${env:MONGO_CDC_CATALOG_URL}",
      description = "Catalog database, for --drop-tables (env MONGO_CDC_CATALOG_URL).")
  String catalogUrl;

  @Option(names = "--peers-file", paramLabel = "FILE", defaultValue = "${env:MONGO_CDC_PEERS_FILE}",
      description = "Peers, for --drop-tables (env MONGO_CDC_PEERS_FILE).")
  Path peersFile;

  MirrorDropCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    if (dropTables && (catalogUrl == null || catalogUrl.isBlank())) {
      throw new CliException("--drop-tables needs the catalog: give --catalog-url or set MONGO_CDC_CATALOG_URL", ExitCodes.INVALID);
    }
    // The configuration (peer names, schema, collections) says which tables are the mirror's.
    MirrorConfig config = mirror.workflow(client).status().config();
    mirror.untyped(client).terminate("dropped by mongo-cdc mirror drop");
    out.printf("terminated workflow %s%n", mirror.workflowId());
    if (dropTables) {
      WorkerPorts ports = context.ports().create(catalogUrl, ConfiguredPeerRegistry.load(peersFile, context.environment()),
          PostgresSinkOptions.defaults());
      ports.destination().dropTables(ports.destination().plannedTables(config));
      ports.catalog().forget(config.name());
      out.printf("dropped the destination tables and catalog rows of mirror %s%n", mirror.name);
    }
  }
}
