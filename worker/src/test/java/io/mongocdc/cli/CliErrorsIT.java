package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A CLI command's error as a user sees it from the built jar, with the product's logging
 * configuration: the one-line reason, no library stack traces before it (issue 36: a mistyped
 * Temporal host printed 170 lines of gRPC warnings first). Runs after {@code package}.
 */
class CliErrorsIT {

  private static final Path JAR = Path.of("target", "mongo-cdc.jar");

  @Test
  void aHostThatDoesNotResolveIsOneLineWithoutAStackTrace() throws Exception {
    assertTrue(Files.exists(JAR), "build the jar first (mvn package): " + JAR.toAbsolutePath());
    String java = ProcessHandle.current().info().command().orElse("java");
    Process cli = new ProcessBuilder(List.of(java, "-jar", JAR.toString(), "mirror", "status", "dev",
        "--temporal-address", "nosuchhost.invalid:7233", "--temporal-timeout", "3")).redirectErrorStream(true).start();
    String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(cli.waitFor(60, TimeUnit.SECONDS));

    assertEquals(1, cli.exitValue(), output);
    assertTrue(output.contains("cannot reach Temporal at nosuchhost.invalid:7233"), output);
    assertFalse(output.contains("\tat ") || output.contains("Exception"), output);
  }
}
