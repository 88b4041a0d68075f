package io.mongocdc.cli;

import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.activities.QuarantineReplay;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.workflows.model.MirrorConfig;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "replay-quarantine", mixinStandardHelpOptions = true,
    description = "Apply the mirror's quarantined events (catalog table quarantined_events) again, once their cause "
        + "is fixed; a newer change of the same document still wins, refused events stay quarantined.")
final class MirrorReplayQuarantineCommand extends MirrorSubcommand {

  @Mixin CatalogAccessOptions catalog;

  MirrorReplayQuarantineCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) throws Exception {
    String catalogUrl = catalog.requireCatalogUrl("replay-quarantine");
    // The configuration in effect says where the mirror's tables are.
    MirrorConfig config = mirror.workflow(client).status().config();
    WorkerPorts ports = context.ports().create(catalogUrl, catalog.peers.registry(context.environment()),
        PostgresSinkOptions.defaults());
    QuarantineReplay.Result result = new QuarantineReplay(ports.destination(), ports.catalog()).replay(config);
    out.printf("mirror %s: %d quarantined events applied, %d refused again (still in quarantined_events)%n",
        mirror.name, result.applied(), result.refused());
  }
}
