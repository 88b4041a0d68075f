package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mongo-cdc dev --verify} stopped by a signal while verify compares (issue 36, finding 8:
 * the signal was ignored until the verify ended, 258 s over ~100 000 documents). A class of its
 * own so the integration tests' two JVMs can run it beside {@link DevShutdownIT}.
 */
class DevVerifyShutdownIT {

  @TempDir Path directory;
  private DevProcess dev;

  @AfterEach
  void stop() {
    if (dev != null) {
      dev.close();
    }
  }

  @Test
  void aSignalWhileVerifyingPrintsTheSummaryWithin15Seconds() throws Exception {
    Path report = directory.resolve("report.json");
    // Verify reads 20 documents a second: over the documents 500 events leave it would take about 25 s.
    dev = DevProcess.start(directory, report, "--events", "500", "--verify", "--verify-documents-per-second", "20");
    dev.awaitOutput("verifying the destination against the source");

    long signalled = System.nanoTime();
    dev.signal();

    assertTrue(dev.endsWithin(DevProcess.STOPS_WITHIN), "still running 15 s after the signal");
    assertTrue(System.nanoTime() - signalled < DevProcess.STOPS_WITHIN.toNanos());
    String out = dev.output();
    assertTrue(out.contains("verify: interrupted by the stop") && out.contains("summary: "), out);
    assertTrue(new ObjectMapper().readTree(Files.readString(report)).get("verify").get("interrupted").asBoolean(), out);
  }
}
