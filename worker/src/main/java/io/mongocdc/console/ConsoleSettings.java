package io.mongocdc.console;

import java.util.List;

/**
 * Where and how a process serves the {@link MirrorConsole}.
 *
 * @param host the address to bind (localhost unless the console is to be reached from elsewhere,
 *     behind a proxy: docs/console.md)
 * @param port the port; -1 for no console, 0 for any free port
 * @param readOnly pages only: no action is offered or taken
 * @param allowedHosts host names the console answers to besides {@code host}, its address and,
 *     bound to loopback, {@code localhost}: a proxy's name, say
 */
public record ConsoleSettings(String host, int port, boolean readOnly, List<String> allowedHosts) {

  public static final ConsoleSettings NONE = new ConsoleSettings("127.0.0.1", -1, false, List.of());

  public ConsoleSettings {
    allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
  }

  /** Bound to 127.0.0.1, answering to the loopback names only. */
  public static ConsoleSettings local(int port, boolean readOnly) {
    return new ConsoleSettings("127.0.0.1", port, readOnly, List.of());
  }

  /** Whether {@code name} can be an allowed host: a host name or address (a port, if given, is not compared). */
  public static boolean isHostName(String name) {
    return ConsoleHosts.nameOf(name) != null;
  }

  public boolean enabled() {
    return port >= 0;
  }
}
