package io.mongocdc.cli;

import io.mongocdc.console.ConsoleSettings;
import picocli.CommandLine.Option;

/** The mirror console's options, shared by {@code worker} (off unless given a port) and {@code dev} (on). */
final class ConsoleOptions {

  @Option(names = "--console-host", paramLabel = "HOST", defaultValue = "${env:MONGO_CDC_CONSOLE_HOST:-127.0.0.1}",
      description = "Address the mirror console binds (env MONGO_CDC_CONSOLE_HOST; default: ${DEFAULT-VALUE}, this"
          + " machine only; see docs/console.md before exposing it).")
  String host;

  @Option(names = "--console-read-only", negatable = true, defaultValue = "${env:MONGO_CDC_CONSOLE_READ_ONLY:-false}",
      fallbackValue = "true",
      description = "Serve the console's pages without its actions (pause, resume, verify, edit) (env"
          + " MONGO_CDC_CONSOLE_READ_ONLY; default: ${DEFAULT-VALUE}).")
  boolean readOnly;

  /** @throws CliException for a port out of range */
  ConsoleSettings settings(int port) {
    if (port < -1 || port > 65_535) {
      throw new CliException("--console-port must be between 0 and 65535, or -1 for no console; got " + port,
          ExitCodes.INVALID);
    }
    if (host == null || host.isBlank()) {
      throw new CliException("--console-host must not be blank", ExitCodes.INVALID);
    }
    return new ConsoleSettings(host, port, readOnly);
  }
}
