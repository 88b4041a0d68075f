package io.mongocdc.testing;

import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;

/**
 * gRPC stubs to a Temporal server a test started in another process or thread, with deadlines a
 * busy machine meets: the SDK's defaults give the first call (its system-info check) about five
 * seconds, which a loaded two-core machine can miss while the server is up. The CLI does the same
 * with the operator's {@code --timeout} ({@code ClientFactory}).
 */
public final class PatientServiceStubs {

  private static final Duration DEADLINE = Duration.ofMinutes(1);

  private PatientServiceStubs() {}

  /** Stubs to the server on {@code localhost:port}; the caller shuts them down. */
  public static WorkflowServiceStubs to(int port) {
    return WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget("localhost:" + port).setRpcTimeout(DEADLINE).setRpcQueryTimeout(DEADLINE)
        .setSystemInfoTimeout(DEADLINE).setHealthCheckTimeout(DEADLINE).build());
  }
}
