package io.mongocdc.cli;

import io.mongocdc.activities.CommitCheckpointActivityImpl;
import io.mongocdc.activities.PeerRegistry;
import io.mongocdc.activities.PullRecordsActivityImpl;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.activities.SetupMirrorActivityImpl;
import io.mongocdc.workflows.CdcFlowWorkflowImpl;
import io.temporal.worker.Worker;

/** Registers the mirror workflow and its activities, over the given ports, on a worker. */
public final class WorkerWiring {

  private WorkerWiring() {}

  public static void register(Worker worker, PeerRegistry peers, WorkerPorts ports, PullTuning tuning) {
    worker.registerWorkflowImplementationTypes(CdcFlowWorkflowImpl.class);
    worker.registerActivitiesImplementations(
        new SetupMirrorActivityImpl(peers, ports.source(), ports.destination(), ports.catalog()),
        new PullRecordsActivityImpl(ports.source(), ports.destination(), tuning),
        new CommitCheckpointActivityImpl(ports.catalog()));
  }
}
