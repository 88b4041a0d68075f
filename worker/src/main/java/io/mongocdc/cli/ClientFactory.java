package io.mongocdc.cli;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;

/** Connects to Temporal. Tests substitute one that returns a test environment's client. */
@FunctionalInterface
public interface ClientFactory {

  WorkflowClient connect(TemporalOptions temporal);

  /** Called once a command is done with a client it got from {@link #connect}. */
  default void release(WorkflowClient client) {}

  /** A gRPC connection to the configured frontend, closed on release. */
  static ClientFactory grpc() {
    return new ClientFactory() {
      @Override
      public WorkflowClient connect(TemporalOptions temporal) {
        // The SDK's default deadlines (a few seconds for the first call) fail on a loaded machine
        // while the server is up; every call here gets the operator's timeout instead.
        Duration timeout = temporal.timeout();
        WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).setRpcTimeout(timeout)
                .setRpcQueryTimeout(timeout).setSystemInfoTimeout(timeout).setHealthCheckTimeout(timeout).build());
        return WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder().setNamespace(temporal.namespace()).build());
      }

      @Override
      public void release(WorkflowClient client) {
        client.getWorkflowServiceStubs().shutdown();
      }
    };
  }
}
