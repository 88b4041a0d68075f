package io.mongocdc.cli;

import io.mongocdc.workflows.model.EditResult;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "edit", mixinStandardHelpOptions = true,
    description = "Change a mirror's settings; they apply from the next batch. A bad edit is rejected with the reason.")
final class MirrorEditCommand extends MirrorSubcommand {

  @Mixin SettingsOptions settings;

  MirrorEditCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    Map<String, Object> edit = settings.asJson();
    if (edit.isEmpty()) {
      throw new CliException("nothing to edit: give at least one setting option (see --help)", ExitCodes.INVALID);
    }
    EditResult result = mirror.workflow(client).edit(edit);
    out.printf("edited mirror %s; from batch %d: %s%n", mirror.name, result.appliesFromBatch(),
        StatusText.settings(result.nextBatchSettings()));
  }
}
