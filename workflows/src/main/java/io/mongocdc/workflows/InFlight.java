package io.mongocdc.workflows;

import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;

/**
 * The cancellable work under way (a batch, or a round of copies), so that a pause or terminate
 * with {@code cancelInFlight} can cancel it, and the failure it then throws is known for the
 * operator's doing rather than a fault.
 */
final class InFlight {

  private CancellationScope scope;
  private boolean cancelledByOperator;

  /** Runs {@code work} in a scope the operator can cancel. */
  void run(Runnable work) {
    scope = Workflow.newCancellationScope(work);
    try {
      scope.run();
    } finally {
      scope = null;
    }
  }

  /** Cancels the work under way, if any, for the operator. */
  void cancelByOperator() {
    if (scope != null) {
      cancelledByOperator = true;
      scope.cancel("cancelled by the operator");
    }
  }

  /** Whether the operator cancelled the work since this was last asked; asking forgets it. */
  boolean takeOperatorCancel() {
    boolean cancelled = cancelledByOperator;
    cancelledByOperator = false;
    return cancelled;
  }
}
