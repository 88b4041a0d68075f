package io.mongocdc.cli;

import io.mongocdc.secrets.JavaUtilLogging;
import io.mongocdc.secrets.Redaction;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code mongo-cdc}: runs a worker, and creates and controls mirrors through Temporal. */
@Command(name = "mongo-cdc", mixinStandardHelpOptions = true, version = "mongo-cdc 0.1.0",
    description = "Change data capture from MongoDB into PostgreSQL, orchestrated by Temporal.",
    subcommands = {WorkerCommand.class, MirrorCommand.class, DevCommand.class})
public final class MongoCdc {

  public static void main(String[] args) {
    JavaUtilLogging.routeToSlf4j();
    System.exit(commandLine(CliContext.production()).execute(args));
  }

  /** The command line, with its commands built over {@code context}. */
  public static CommandLine commandLine(CliContext context) {
    CommandLine cli = new CommandLine(new MongoCdc(), new ContextFactory(context));
    cli.setExecutionExceptionHandler((failure, commandLine, parseResult) -> {
      CliException explained = failure instanceof CliException cli2 ? cli2
          : new CliException(Redaction.redact(String.valueOf(failure.getMessage())), ExitCodes.FAILED);
      // Every line is redacted: a message may quote a connection string the user typed.
      commandLine.getErr().println("mongo-cdc: " + Redaction.redact(explained.getMessage()));
      commandLine.getErr().flush();
      return explained.exitCode();
    });
    cli.setParameterExceptionHandler((failure, args) -> {
      CommandLine command = failure.getCommandLine();
      command.getErr().println("mongo-cdc: " + Redaction.redact(failure.getMessage()) + " (see '"
          + command.getCommandSpec().qualifiedName() + " --help')");
      command.getErr().flush();
      return ExitCodes.INVALID;
    });
    return cli;
  }

  /** Builds commands that take the context in their constructor. */
  private record ContextFactory(CliContext context) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> type) throws Exception {
      try {
        var constructor = type.getDeclaredConstructor(CliContext.class);
        return constructor.newInstance(context);
      } catch (NoSuchMethodException e) {
        return CommandLine.defaultFactory().create(type);
      }
    }
  }
}
