package io.mongocdc.cli;

import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A {@code mongo-cdc mirror} command: connects to Temporal, acts on one mirror, explains failures. */
abstract class MirrorSubcommand implements Callable<Integer> {

  final CliContext context;

  @Mixin MirrorArgument mirror;

  @Spec CommandSpec spec;

  MirrorSubcommand(CliContext context) {
    this.context = context;
  }

  abstract void run(WorkflowClient client, PrintWriter out) throws Exception;

  @Override
  public final Integer call() {
    WorkflowClient client = null;
    try {
      client = context.clients().connect(mirror.temporal);
      run(client, spec.commandLine().getOut());
      spec.commandLine().getOut().flush();
      return ExitCodes.OK;
    } catch (Exception e) {
      throw Failures.explain(e, mirror.name, mirror.temporal);
    } finally {
      if (client != null) {
        context.clients().release(client);
      }
    }
  }
}
