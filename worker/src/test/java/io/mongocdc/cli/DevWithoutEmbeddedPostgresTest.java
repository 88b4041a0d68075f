package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.devtools.EmbeddedPostgresBinaries;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The jar an image build makes ({@code -Pslim}) has no embedded PostgreSQL: {@code dev} from it
 * says so and what to use instead, before it starts anything (issue 47, finding 11).
 */
class DevWithoutEmbeddedPostgresTest {

  @Test
  void devFromABuildWithoutTheEmbeddedPostgresSaysSoAndNamesTheFullJar() throws Exception {
    StringWriter out = new StringWriter();
    CommandLine cli = DevCommandTest.cli(new CountDownLatch(1), out);
    try (URLClassLoader withoutBinaries = new URLClassLoader(new URL[0], null)) {
      ((DevCommand) cli.getSubcommands().get("dev").getCommand()).binaries = withoutBinaries;

      int exit = cli.execute("dev", "--headless", "--events", "10", "--temporal-port",
          String.valueOf(DevCommandTest.freePort()), "--metrics-port", "-1", "--console-port", "-1");

      assertEquals(ExitCodes.FAILED, exit, out.toString());
      assertTrue(out.toString().contains("mongo-cdc: this build of mongo-cdc has no embedded PostgreSQL"), out.toString());
      assertTrue(out.toString().contains("java -jar worker/target/mongo-cdc.jar dev"), out.toString());
      assertFalse(out.toString().contains("field hash key"), "nothing started before the refusal: " + out);
    }
  }

  @Test
  void theTestClassPathCarriesTheBinariesAndAnEmptyOneDoesNot() throws Exception {
    assertTrue(EmbeddedPostgresBinaries.bundled(getClass().getClassLoader()));
    try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
      assertFalse(EmbeddedPostgresBinaries.bundled(empty));
    }
  }
}
