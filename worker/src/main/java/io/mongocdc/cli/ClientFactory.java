package io.mongocdc.cli;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;

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
        WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
        return WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder().setNamespace(temporal.namespace()).build());
      }

      @Override
      public void release(WorkflowClient client) {
        client.getWorkflowServiceStubs().shutdown();
      }
    };
  }
}
