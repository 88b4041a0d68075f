package io.mongocdc.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.mongocdc.workflows.model.MirrorStatus;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "status", mixinStandardHelpOptions = true, description = "Show a mirror's status (the workflow's status query).")
final class MirrorStatusCommand extends MirrorSubcommand {

  @Option(names = "--json", description = "Print the status as JSON, as the Temporal CLI's query shows it.")
  boolean json;

  MirrorStatusCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) throws Exception {
    MirrorStatus status = mirror.workflow(client).status();
    if (json) {
      out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(status));
    } else {
      out.print(StatusText.of(status, System.currentTimeMillis(),
          RunningBatchReport.read(client, mirror.workflowId()).orElse(null)));
    }
  }
}
