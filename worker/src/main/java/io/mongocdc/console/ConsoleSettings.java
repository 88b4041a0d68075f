package io.mongocdc.console;

/**
 * Where and how a process serves the {@link MirrorConsole}.
 *
 * @param host the address to bind (localhost unless the console is to be reached from elsewhere,
 *     behind a proxy: docs/console.md)
 * @param port the port; -1 for no console, 0 for any free port
 * @param readOnly pages only: no action is offered or taken
 */
public record ConsoleSettings(String host, int port, boolean readOnly) {

  public static final ConsoleSettings NONE = new ConsoleSettings("127.0.0.1", -1, false);

  public boolean enabled() {
    return port >= 0;
  }
}
