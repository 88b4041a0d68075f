package io.mongocdc.cli;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;

/** Connects to Temporal. Tests substitute one that returns a test environment's client. */
@FunctionalInterface
public interface ClientFactory {

  WorkflowClient connect(TemporalOptions temporal);

  /** A gRPC connection to the configured frontend. */
  static ClientFactory grpc() {
    return temporal -> {
      WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(
          WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      return WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder().setNamespace(temporal.namespace()).build());
    };
  }
}
