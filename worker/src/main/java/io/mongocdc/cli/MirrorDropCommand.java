package io.mongocdc.cli;

import io.mongocdc.activities.ConfiguredPeerRegistry;
import io.mongocdc.activities.MirrorTable;
import io.mongocdc.destination.PostgresSinkOptions;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.mongocdc.workflows.model.StopRequest;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowStub;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code mirror drop}: terminates the workflow; with {@code --drop-tables} also drops the tables
 * recorded for the mirror and forgets its catalog rows. Everything that could fail for want of
 * access (the catalog, the peers, the destination) is checked before the workflow is terminated,
 * and the catalog rows go last, so a drop that failed half-way can be run again to finish.
 */
@Command(name = "drop", mixinStandardHelpOptions = true,
    description = "Drop a mirror: terminate its workflow; with --drop-tables also drop its destination tables and catalog rows.")
final class MirrorDropCommand extends MirrorSubcommand {

  @Option(names = "--drop-tables", description = "Also drop the destination tables and the mirror's catalog rows.")
  boolean dropTables;

  /** For --drop-tables. */
  @Mixin CatalogAccessOptions catalog;

  /** How long a drop with tables waits for the workflow to stop by itself before terminating it. */
  static final Duration STOP_WAIT = Duration.ofSeconds(30);
  private static final Duration STOP_POLL = Duration.ofMillis(50);

  MirrorDropCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    if (!dropTables) {
      mirror.untyped(client).terminate("dropped by mongo-cdc mirror drop");
      out.printf("terminated workflow %s%n", mirror.workflowId());
      return;
    }
    String catalogUrl = catalog.requireCatalogUrl("--drop-tables");
    WorkerPorts ports;
    TablesToDrop drop;
    try {
      ports = context.ports().create(catalogUrl, ConfiguredPeerRegistry.load(catalog.peersFile, context.environment()),
          PostgresSinkOptions.defaults());
      drop = TablesToDrop.of(mirror.name, ports);
      drop.destinationPeers().forEach(ports.destination()::checkReachable);
    } catch (RuntimeException e) {
      CliException explained = Failures.explain(e, mirror.name, mirror.temporal);
      throw new CliException(explained.getMessage() + "; nothing was terminated or dropped", explained.exitCode());
    }
    boolean terminated = stopIfRunning(client);
    out.printf(terminated ? "terminated workflow %s%n" : "workflow %s is not running; nothing to terminate%n",
        mirror.workflowId());
    if (drop.nothing()) {
      out.printf("mirror %s: nothing left to drop (no catalog rows, no recorded tables)%n", mirror.name);
      return;
    }
    ports.destination().dropTables(drop.tables());
    for (MirrorTable table : drop.tables()) {
      out.printf("dropped destination table %s%n", table.describe());
    }
    ports.catalog().forget(mirror.name);
    out.printf("dropped the destination tables (%d) and catalog rows of mirror %s%n", drop.tables().size(), mirror.name);
  }

  /**
   * Stops the workflow before its tables go. The terminate signal with cancelInFlight makes it
   * cancel its batch or snapshot copy and wait until that has stopped writing, so nothing writes
   * or creates a table after it is dropped (a Temporal terminate alone leaves the activity
   * running until its next heartbeat). A workflow that has not closed within {@link #STOP_WAIT}
   * (no worker polls its task queue) is terminated.
   *
   * @return false if no run of the workflow is running (never started, or closed already)
   */
  private boolean stopIfRunning(WorkflowClient client) {
    WorkflowStub stub = mirror.untyped(client);
    if (!running(stub)) {
      return false;
    }
    try {
      mirror.workflow(client).terminate(new StopRequest(true));
    } catch (WorkflowNotFoundException closedMeanwhile) {
      return true;
    }
    long deadline = System.nanoTime() + STOP_WAIT.toNanos();
    while (running(stub)) {
      if (System.nanoTime() > deadline) {
        terminate(stub);
        break;
      }
      LockSupport.parkNanos(STOP_POLL.toNanos());
    }
    return true;
  }

  private static boolean running(WorkflowStub stub) {
    try {
      return stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (WorkflowNotFoundException e) {
      return false;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  private static void terminate(WorkflowStub stub) {
    try {
      stub.terminate("dropped by mongo-cdc mirror drop");
    } catch (WorkflowNotFoundException closedMeanwhile) {
      // it stopped on its own after all
    }
  }
}
