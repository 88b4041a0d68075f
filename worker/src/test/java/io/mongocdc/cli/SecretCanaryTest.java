package io.mongocdc.cli;

import io.mongocdc.wiring.PortsFactory;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.secrets.JavaUtilLogging;
import io.mongocdc.testing.LogCapture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * A known password, written in every form a user may write a credential in, must appear in no
 * log line (ours, or a library's through java.util.logging) and in no line the CLI prints when
 * the catalog it was given cannot be used (a worker's catalog URL is where the password is).
 */
class SecretCanaryTest {

  private static final String CANARY = "CANARY";

  private LogCapture logged;

  @BeforeEach
  void captureTheLog() {
    JavaUtilLogging.routeToSlf4j(); // as MongoCdc.main does
    logged = LogCapture.start();
  }

  @AfterEach
  void stopCapturing() {
    logged.close();
  }

  @Test
  void theWorkersLogPatternRedactsEveryMessageAndStackTrace() throws Exception {
    try (var config = MongoCdc.class.getResourceAsStream("/logback.xml")) {
      String xml = new String(config.readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(xml.contains("%redactedMsg") && xml.contains("%redactedEx"), xml);
      assertFalse(xml.matches("(?s).*%(msg|message|m|ex|exception|throwable)\\b.*"), "an unredacted conversion: " + xml);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "postgresql://cdc:p@ss" + CANARY + "@127.0.0.1:1/catalog",
      "postgresql://cdc:my " + CANARY + "@127.0.0.1:1/catalog",
      "postgresql://cdc:p%40" + CANARY + "@127.0.0.1:1/catalog",
      "postgresql://c@corp:" + CANARY + "@127.0.0.1:1/catalog",
      "jdbc:postgresql://127.0.0.1:1/catalog?user=cdc&password=x;" + CANARY,
      "jdbc:postgresql://127.0.0.1:1/catalog?user=cdc&PASSWORD=" + CANARY,
      "host=127.0.0.1 port=1 user=cdc password='my " + CANARY + "' dbname=catalog",
      "host=127.0.0.1 port=1 user=cdc password = " + CANARY,
      "jdbc:postgresql://127.0.0.1:1/catalog?user=cdc&sslpassword=" + CANARY,
      "jdbc:postgresql://127.0.0.1:1/catalog?user=cdc&password=x&sslpassword=" + CANARY,
      "postgresql://cdc:TOP/" + CANARY + "@127.0.0.1:1/catalog",
      "postgresql://cdc:a/b@" + CANARY + "@127.0.0.1:1/catalog",
      "mongodb://127.0.0.1:1/?tls=true&tlsCertificateKeyFilePassword=" + CANARY,
      "mongodb://127.0.0.1:1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:" + CANARY,
  })
  void theCanaryAppearsInNoLogLineAndNoCliLine(String credential) {
    // A library that logs through java.util.logging, as pgjdbc does, and one that logs a failure.
    java.util.logging.Logger.getLogger("org.postgresql.Driver").warning("cannot use " + credential);
    LoggerFactory.getLogger("io.mongocdc.test").warn("connecting failed",
        new IllegalStateException("Unable to obtain connection from database (" + credential + ")"));

    // The catalog cannot be used, and the command's own explanation quotes what it was given
    // (PostgresUrlsTest covers the parser's message).
    PortsFactory unusableCatalog = (catalogUrl, peers, sinkOptions) -> {
      throw new CliException("cannot open the catalog at " + catalogUrl, ExitCodes.FAILED);
    };
    StringWriter cliOut = new StringWriter();
    int exit = MongoCdc.commandLine(new CliContext(ClientFactory.grpc(), unusableCatalog, Map.of(), stop -> stop.run()))
        .setOut(new PrintWriter(cliOut, true)).setErr(new PrintWriter(cliOut, true))
        .execute("worker", "--catalog-url", credential, "--metrics-port", "-1");

    String log = logged.text();
    assertTrue(log.contains("org.postgresql.Driver - cannot use "), "the JUL record reached the log: " + log);
    assertFalse(log.contains(CANARY), () -> "the password reached the log: " + log);
    assertTrue(exit != 0, cliOut::toString);
    assertTrue(cliOut.toString().startsWith("mongo-cdc: "), cliOut.toString());
    assertFalse(cliOut.toString().contains(CANARY), () -> "the password reached the CLI's output: " + cliOut);
  }

  /**
   * Every command's error path that can quote a catalog URL: the real ports (the catalog is
   * unreachable: port 1), a drop that needs the catalog, and picocli's own echo of an option it
   * does not know, which quotes the value that followed it.
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "worker|--catalog-url|jdbc:postgresql://127.0.0.1:1/db?user=u&sslpassword=" + CANARY + "|--metrics-port|-1",
      "worker|--catalog-url|postgresql://u:TOP/" + CANARY + "@127.0.0.1:1/db|--metrics-port|-1",
      "mirror|drop|m1|--drop-tables|--catalog-url|jdbc:postgresql://127.0.0.1:1/db?password=x&sslpassword=" + CANARY,
      "mirror|drop|m1|--drop-tables|--catalog-url|postgresql://u:TOP/" + CANARY + "@127.0.0.1:1/db",
      "worker|--catalog-urll|jdbc:postgresql://127.0.0.1:1/db?user=u&sslpassword=" + CANARY,
      "worker|--catalog-urll=postgresql://u:TOP/" + CANARY + "@127.0.0.1:1/db",
  })
  void theCanaryAppearsInNoLineOfAnyCommandsErrorPath(String arguments) {
    StringWriter cliOut = new StringWriter();
    int exit = MongoCdc.commandLine(new CliContext(ClientFactory.grpc(), PortsFactory.installed(), Map.of(),
            stop -> stop.run()))
        .setOut(new PrintWriter(cliOut, true)).setErr(new PrintWriter(cliOut, true))
        .execute(arguments.split("\\|"));

    String log = logged.text();
    assertTrue(exit != 0, cliOut::toString);
    assertTrue(cliOut.toString().startsWith("mongo-cdc: "), cliOut.toString());
    assertFalse(cliOut.toString().contains(CANARY), () -> "the password reached the CLI's output: " + cliOut);
    assertFalse(log.contains(CANARY), () -> "the password reached the log: " + log);
  }
}
