package io.mongocdc.cli;

import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

@Command(name = "resume", mixinStandardHelpOptions = true,
    description = "Resume a paused or failed mirror, or end a backoff wait: the batch or setup is tried again.")
final class MirrorResumeCommand extends MirrorSubcommand {

  MirrorResumeCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    mirror.workflow(client).resume();
    out.printf("resume requested for mirror %s%n", mirror.name);
  }
}
