package io.mongocdc.faults;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.TaskQueueKind;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest;
import io.temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.concurrent.TimeUnit;

/**
 * What a Temporal server does for a crashed worker's sticky task queue, which the test server does
 * not: a workflow's tasks go to the sticky queue of the worker that last ran it, and when nobody
 * polls that queue the server gives them to the workflow's normal queue after the sticky
 * schedule-to-start timeout. The test server waits for ever. So after a crash, this takes the
 * dead queue's tasks and never answers: a workflow task then times out (the mirrors' workflow task
 * timeout), the test server drops the stickiness and schedules it on the normal queue; a query
 * times out and the driver asks again.
 *
 * <p>As a gRPC interceptor on the worker's service stubs it notes the sticky queue each workflow
 * task completion names, so {@link #drainLast} knows which queue died.
 */
final class DeadStickyQueue implements ClientInterceptor, AutoCloseable {

  private volatile String lastSticky;
  private volatile Thread drainer;
  private volatile boolean closed;

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    ClientCall<Q, R> call = next.newCall(method, options);
    if (!method.getFullMethodName().endsWith("/RespondWorkflowTaskCompleted")) {
      return call;
    }
    return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
      @Override
      public void sendMessage(Q message) {
        if (message instanceof RespondWorkflowTaskCompletedRequest request && request.hasStickyAttributes()) {
          lastSticky = request.getStickyAttributes().getWorkerTaskQueue().getName();
        }
        super.sendMessage(message);
      }
    };
  }

  /** Starts taking (and dropping) the tasks of the sticky queue named last, the crashed worker's. */
  synchronized void drainLast(WorkflowServiceStubs service, String namespace) {
    String queue = lastSticky;
    if (queue == null || closed) {
      return;
    }
    Thread previous = drainer;
    Thread thread = new Thread(() -> drain(service, namespace, queue), "faults-dead-sticky-queue");
    thread.setDaemon(true);
    drainer = thread;
    thread.start();
    if (previous != null) {
      previous.interrupt();
    }
  }

  private void drain(WorkflowServiceStubs service, String namespace, String queue) {
    PollWorkflowTaskQueueRequest poll = PollWorkflowTaskQueueRequest.newBuilder()
        .setNamespace(namespace)
        .setTaskQueue(TaskQueue.newBuilder().setName(queue).setKind(TaskQueueKind.TASK_QUEUE_KIND_STICKY))
        .setIdentity("crashed worker (its sticky queue)")
        .build();
    while (!closed && !Thread.currentThread().isInterrupted()) {
      try {
        // The task is dropped: nobody answers for a dead worker.
        service.blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS).pollWorkflowTaskQueue(poll);
      } catch (StatusRuntimeException e) {
        // the poll's deadline, or the server going away: poll again unless closed
      }
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    Thread thread = drainer;
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
