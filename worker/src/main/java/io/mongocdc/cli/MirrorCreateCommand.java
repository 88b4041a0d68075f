package io.mongocdc.cli;

import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "create", mixinStandardHelpOptions = true,
    description = "Create a mirror: start its workflow, which sets it up and replicates until dropped.")
final class MirrorCreateCommand extends MirrorSubcommand {

  @Option(names = "--source-peer", required = true, paramLabel = "PEER", description = "The MongoDB peer's name (not a connection string).")
  String sourcePeer;

  @Option(names = "--destination-peer", required = true, paramLabel = "PEER", description = "The PostgreSQL peer's name.")
  String destinationPeer;

  @Option(names = "--database", required = true, description = "The MongoDB database to watch.")
  String database;

  @Option(names = "--collection", paramLabel = "NAME", description = "A collection to replicate (repeat it); none means all.")
  List<String> collections = List.of();

  @Option(names = "--schema", defaultValue = "public", description = "PostgreSQL schema of the tables (default: ${DEFAULT-VALUE}).")
  String schema;

  @Mixin SettingsOptions settings;

  @Mixin StartPointOptions start;

  @Option(names = "--start-check-timeout", defaultValue = "120", paramLabel = "SECONDS",
      description = "With --start-at or --start-after: how long to wait for the worker to check the start point "
          + "against the source's history (default: ${DEFAULT-VALUE}).")
  int startCheckTimeoutSeconds;

  MirrorCreateCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    Checkpoint startPoint = start.startPoint();
    // A mirror that starts at a chosen point copies nothing unless asked: its rows come from the stream.
    MirrorSettings chosen = settings.applyTo(startPoint == null ? MirrorSettings.defaults()
        : MirrorSettings.defaults().with(MirrorSettings.SNAPSHOT, false), collections);
    start.requireSnapshotAfterAnUnfinishedCopy(chosen.snapshot().enabled());
    MirrorConfig config = new MirrorConfig(mirror.name, sourcePeer, destinationPeer, database, collections, schema, chosen)
        .requireValid();
    CdcFlowWorkflow workflow = client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(mirror.workflowId())
        .setTaskQueue(mirror.temporal.taskQueue())
        .build());
    // One workflow per mirror: starting a running mirror again fails (WorkflowExecutionAlreadyStarted).
    String runId = WorkflowClient.start(workflow::run, CdcFlowInput.newMirror(config, startPoint)).getRunId();
    out.printf("created mirror %s (workflow %s, run %s)%n", mirror.name, mirror.workflowId(), runId);
    if (startPoint != null) {
      out.flush();
      new StartPointWait(client, mirror, runId, Duration.ofSeconds(startCheckTimeoutSeconds)).await(out);
    }
  }
}
