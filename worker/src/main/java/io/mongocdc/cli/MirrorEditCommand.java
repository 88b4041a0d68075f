package io.mongocdc.cli;

import io.mongocdc.workflows.model.EditResult;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "edit", mixinStandardHelpOptions = true,
    description = "Change a mirror's settings, or add collections; they apply from the next batch. "
        + "A bad edit is rejected with the reason.")
final class MirrorEditCommand extends MirrorSubcommand {

  @Mixin SettingsOptions settings;

  @Option(names = "--add-collection", paramLabel = "NAME",
      description = "Start replicating this collection too (repeat it): it is snapshotted from the committed "
          + "checkpoint (when snapshots are on), then its changes are replicated from there, with no gap.")
  List<String> addCollections;

  MirrorEditCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    Map<String, Object> edit = settings.asJson(addCollections);
    if (edit.isEmpty()) {
      throw new CliException("nothing to edit: give at least one setting option or --add-collection (see --help)",
          ExitCodes.INVALID);
    }
    EditResult result = mirror.workflow(client).edit(edit);
    out.printf("edited mirror %s; from batch %d: %s%n", mirror.name, result.appliesFromBatch(),
        StatusText.settings(result.nextBatchSettings()));
    if (addCollections != null) {
      out.printf("adding collections %s before that batch: %s%n", String.join(", ", addCollections),
          result.nextBatchSettings().snapshot().enabled()
              ? "each is snapshotted from the committed checkpoint, then replicated from there"
              : "snapshots are off, so only their changes from the committed checkpoint are replicated");
    }
  }
}
