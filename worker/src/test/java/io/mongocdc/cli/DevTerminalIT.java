package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mongo-cdc dev} in a terminal: under a pseudo-terminal 80 columns wide (util-linux {@code
 * script}), its log lines go to the file the banner names and the progress area's lines (snapshot,
 * streaming) fit the width; with its output piped, it prints today's plain lines and no terminal
 * control. Runs after {@code package} (it starts the built jar); the pseudo-terminal case is skipped
 * with a notice where {@code script} is not installed.
 */
class DevTerminalIT {

  private static final Path JAR = Path.of("target", "mongo-cdc.jar");
  private static final Path SCRIPT = Path.of("/usr/bin/script");
  private static final int COLUMNS = 80;
  /** A control sequence: CSI with its parameters and final byte, or ESC and one character. */
  private static final Pattern CONTROL = Pattern.compile("\u001B(\\[[0-9;?]*[A-Za-z]|.)");
  private static final Pattern LOG_FILE = Pattern.compile("log: +(\\S+mongo-cdc-dev-\\d+\\.log)");

  @TempDir Path directory;

  private static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  private static List<String> dev(String... extra) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(java()));
    command.addAll(DevProcess.JVM_OPTIONS);
    command.addAll(List.of("-jar", JAR.toAbsolutePath().toString(), "dev",
        "--events", "6000", "--rate", "3000", "--batch-size", "2000", "--metrics-port", "-1", "--console-port", "-1",
        "--temporal-port", String.valueOf(DevCommandTest.freePort())));
    command.addAll(List.of(extra));
    return command;
  }

  @Test
  void underATerminalLogsGoToTheNamedFileAndTheProgressAreaFitsItsWidth() throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(SCRIPT),
        "util-linux 'script' is not installed: dev's terminal was not checked under a pseudo-terminal");
    assertTrue(Files.exists(JAR), "build the jar first (mvn package): " + JAR.toAbsolutePath());
    Path typescript = directory.resolve("typescript");
    String inner = "stty cols " + COLUMNS + " rows 24; exec " + String.join(" ", dev());
    Process process = new ProcessBuilder(SCRIPT.toString(), "-qfec", inner, typescript.toString())
        .redirectErrorStream(true).redirectOutput(directory.resolve("script.out").toFile()).start();
    assertTrue(process.waitFor(180, TimeUnit.SECONDS), "dev did not end");
    String screen = Files.readString(typescript, StandardCharsets.UTF_8);
    assertEquals(0, process.exitValue(), screen);

    Matcher logFile = LOG_FILE.matcher(screen);
    assertTrue(logFile.find(), "the banner names the log file: " + screen);
    String log = Files.readString(Path.of(logFile.group(1)), StandardCharsets.UTF_8);
    assertTrue(log.contains(" INFO  "), "the log lines are in the file: " + log);
    assertFalse(screen.contains(" INFO  ["), "no log line of level INFO reaches the screen: " + screen);
    assertTrue(screen.contains("summary: "), screen);

    int phases = 0;
    for (String piece : CONTROL.split(screen)) {
      for (String line : piece.split("[\r\n]")) {
        if (line.startsWith("snapshot  ") || line.startsWith("streaming ")) {
          phases++;
          assertTrue(line.length() < COLUMNS, "a progress line fits the " + COLUMNS + " columns: '" + line + "'");
        }
      }
    }
    assertTrue(phases >= 2, "the area showed the snapshot and streaming phases: " + screen);
    assertTrue(screen.contains("streaming [####################] 6,000/6,000 records"), screen);
    Files.deleteIfExists(Path.of(logFile.group(1)));
  }

  @Test
  void pipedItPrintsPlainLinesAndNoTerminalControl() throws Exception {
    assertTrue(Files.exists(JAR), "build the jar first (mvn package): " + JAR.toAbsolutePath());
    Path output = directory.resolve("dev.out");
    Process process = new ProcessBuilder(dev()).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    assertTrue(process.waitFor(180, TimeUnit.SECONDS), "dev did not end");
    String printed = Files.readString(output, StandardCharsets.UTF_8);
    assertEquals(0, process.exitValue(), printed);
    assertTrue(printed.contains(" INFO  ["), "log lines print as they did: " + printed);
    assertFalse(printed.contains("\u001B[1;"), "no scroll region is set on a pipe: " + printed);
    assertFalse(printed.contains("mongo-cdc-dev-"), "no log file is made: " + printed);
    assertTrue(printed.contains("summary: "), printed);
  }
}
