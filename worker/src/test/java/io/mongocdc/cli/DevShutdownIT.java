package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.MirrorPhase;
import io.temporal.client.WorkflowClient;
import io.mongocdc.testing.PatientServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mongo-cdc dev} as a process, stopped by a signal in each state it can be in: it prints
 * its summary and writes its report within 15 s, and a second signal ends it at once. Runs after
 * {@code package} (it starts the built jar; see {@link DevProcess}).
 */
class DevShutdownIT {

  @TempDir Path directory;
  private DevProcess dev;
  private WorkflowServiceStubs service;

  @AfterEach
  void stop() {
    if (dev != null) {
      dev.close();
    }
    if (service != null) {
      service.shutdownNow();
    }
  }

  @Test
  void aSignalWhileRunningPrintsTheSummaryAndWritesTheReport() throws Exception {
    Path report = directory.resolve("report.json");
    dev = DevProcess.start(directory, report);
    dev.awaitOutput("records delivered"); // a batch committed

    long signalled = System.nanoTime();
    dev.signal();

    assertTrue(dev.endsWithin(DevProcess.STOPS_WITHIN), "still running 15 s after the signal");
    String out = dev.output();
    assertTrue(out.contains("summary: "), out);
    JsonNode figures = new ObjectMapper().readTree(Files.readString(report));
    assertTrue(figures.get("destinationMatchesSource").asBoolean(), figures.toString());
    assertEquals(0, dev.process.exitValue(), out);
    assertTrue(System.nanoTime() - signalled < DevProcess.STOPS_WITHIN.toNanos());
  }

  @Test
  void aSignalWhilePausedStillPrintsTheSummaryAndWritesTheReport() throws Exception {
    Path report = directory.resolve("report.json");
    int temporalPort = DevProcess.freePort();
    dev = DevProcess.start(directory, report, "--temporal-port", String.valueOf(temporalPort));
    dev.awaitOutput("records delivered");
    service = PatientServiceStubs.to(temporalPort);
    CdcFlowWorkflow mirror = WorkflowClient.newInstance(service).newWorkflowStub(CdcFlowWorkflow.class, "mirror-dev");
    mirror.pause(null);
    dev.await("the mirror to pause", () -> mirror.status().state() == MirrorPhase.PAUSED);

    dev.signal();

    assertTrue(dev.endsWithin(DevProcess.STOPS_WITHIN), "still running 15 s after the signal");
    String out = dev.output();
    assertTrue(out.contains("summary: "), out);
    assertTrue(Files.exists(report), out);
  }

  @Test
  void aSecondSignalEndsTheProcessAtOnce() throws Exception {
    dev = DevProcess.start(directory, directory.resolve("report.json"));
    dev.awaitOutput("is running");

    dev.signal();
    dev.awaitOutput("stopping");
    dev.signal();

    assertTrue(dev.endsWithin(Duration.ofSeconds(5)), "a second signal did not end it");
    assertEquals(CliContext.EXIT_ON_SECOND_SIGNAL, dev.process.exitValue());
  }
}
