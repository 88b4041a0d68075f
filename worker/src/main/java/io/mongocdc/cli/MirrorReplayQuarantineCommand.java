package io.mongocdc.cli;

import io.mongocdc.activities.ConfiguredPeerRegistry;
import io.mongocdc.activities.QuarantineReplay;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.workflows.model.MirrorConfig;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "replay-quarantine", mixinStandardHelpOptions = true,
    description = "Apply the mirror's quarantined events (catalog table quarantined_events) again, once their cause "
        + "is fixed; a newer change of the same document still wins, refused events stay quarantined.")
final class MirrorReplayQuarantineCommand extends MirrorSubcommand {

  @Option(names = "--catalog-url", paramLabel = "JDBC_URL", defaultValue = "${env:MONGO_CDC_CATALOG_URL}",
      description = "Catalog database (env MONGO_CDC_CATALOG_URL).")
  String catalogUrl;

  @Option(names = "--peers-file", paramLabel = "FILE", defaultValue = "${env:MONGO_CDC_PEERS_FILE}",
      description = "Peers, to reach the destination (env MONGO_CDC_PEERS_FILE).")
  Path peersFile;

  MirrorReplayQuarantineCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) throws Exception {
    if (catalogUrl == null || catalogUrl.isBlank()) {
      throw new CliException("replay-quarantine needs the catalog: give --catalog-url or set MONGO_CDC_CATALOG_URL",
          ExitCodes.INVALID);
    }
    // The configuration in effect says where the mirror's tables are.
    MirrorConfig config = mirror.workflow(client).status().config();
    WorkerPorts ports = context.ports().create(catalogUrl, ConfiguredPeerRegistry.load(peersFile, context.environment()),
        PostgresSinkOptions.defaults());
    QuarantineReplay.Result result = new QuarantineReplay(ports.destination(), ports.catalog()).replay(config);
    out.printf("mirror %s: %d quarantined events applied, %d refused again (still in quarantined_events)%n",
        mirror.name, result.applied(), result.refused());
  }
}
