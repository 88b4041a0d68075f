package io.mongocdc.cli;

import io.mongocdc.workflows.model.StopRequest;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "pause", mixinStandardHelpOptions = true,
    description = "Pause a mirror at the end of the batch in flight (or at once with --cancel-in-flight).")
final class MirrorPauseCommand extends MirrorSubcommand {

  @Option(names = "--cancel-in-flight",
      description = "Cancel the batch in flight; its records are read again from the committed checkpoint on resume.")
  boolean cancelInFlight;

  MirrorPauseCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    mirror.workflow(client).pause(new StopRequest(cancelInFlight));
    out.printf("pause requested for mirror %s (%s)%n", mirror.name,
        cancelInFlight ? "cancelling the batch in flight" : "at the end of the batch in flight");
  }
}
