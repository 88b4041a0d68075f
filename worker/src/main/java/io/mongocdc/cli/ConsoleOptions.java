package io.mongocdc.cli;

import io.mongocdc.console.ConsoleSettings;
import java.util.List;
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

  @Option(names = "--console-allowed-hosts", paramLabel = "NAME[,NAME...]", split = ",",
      defaultValue = "${env:MONGO_CDC_CONSOLE_ALLOWED_HOSTS}",
      description = "Host names the console also answers to, such as a proxy's (env MONGO_CDC_CONSOLE_ALLOWED_HOSTS)."
          + " It answers to its --console-host and that address, and when bound to loopback to localhost, 127.0.0.1"
          + " and [::1]; a request for any other name (Host header) is refused, so another site's page cannot use"
          + " it under its own name.")
  List<String> allowedHosts;

  /** @throws CliException for a port out of range */
  ConsoleSettings settings(int port) {
    if (port < -1 || port > 65_535) {
      throw new CliException("--console-port must be between 0 and 65535, or -1 for no console; got " + port,
          ExitCodes.INVALID);
    }
    if (host == null || host.isBlank()) {
      throw new CliException("--console-host must not be blank", ExitCodes.INVALID);
    }
    List<String> allowed = allowedHosts == null ? List.of()
        : allowedHosts.stream().map(String::strip).filter(name -> !name.isEmpty()).toList();
    for (String name : allowed) {
      if (!ConsoleSettings.isHostName(name)) {
        throw new CliException("--console-allowed-hosts '" + name + "' is not a host name: give names such as"
            + " cdc.example.com or addresses ([::1] for IPv6), separated by commas", ExitCodes.INVALID);
      }
    }
    return new ConsoleSettings(host, port, readOnly, allowed);
  }
}
