package io.mongocdc.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The shipped alert rules pass {@code promtool check rules} and their unit tests ({@code
 * mongo-cdc-alerts-test.yml}, one case per rule: when it fires, when it must not, and its text).
 * Runs where promtool is on the PATH (Debian's prometheus package has it); skipped with a notice
 * otherwise, as MongoSourceIT is without MONGODB_URI.
 */
class AlertRulesPromtoolTest {

  @Test
  void theRulesPassTheirPromtoolTests() throws Exception {
    Path promtool = promtool();
    Assumptions.assumeTrue(promtool != null,
        "promtool is not on the PATH: the alert rules' promtool tests did not run (install Debian's prometheus package)");
    assertEquals("", run(promtool.toString(), "check", "rules", "mongo-cdc-alerts.yml"));
    assertEquals("", run(promtool.toString(), "test", "rules", "mongo-cdc-alerts-test.yml"));
  }

  /** Runs promtool in the rules' directory; the empty string when it succeeded, else what it printed. */
  private static String run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).directory(AlertRulesTest.RULES_DIRECTORY.toFile())
        .redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return "promtool did not finish within 60 s: " + output;
    }
    return process.exitValue() == 0 ? "" : output;
  }

  private static Path promtool() {
    for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(directory, "promtool");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }
}
