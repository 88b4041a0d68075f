package io.mongocdc.workflows;

/**
 * One kind of work the mirror's workflow does between its operator controls: setting up, applying
 * pending edits, copying, sweeping, rewriting, typed-column work, the batch. The workflow walks its
 * steps in order and runs the first one that is due (after the steps that only prepare the turn),
 * then checks pause, terminate and continue-as-new again.
 *
 * <p>A step owns its change ids ({@code Workflow.getVersion}), its activity calls and its state
 * changes. Steps do not call each other (a test checks it): what one leaves for another is in
 * {@link FlowState}. A step's {@link #due} may record a version marker, so the order of the steps
 * in the list is part of the workflow's command sequence: do not reorder them.
 */
interface Step {

  /** Whether the step has work to do now. */
  boolean due();

  /** Does the work. An activity failure is thrown: the workflow backs off or waits for the operator. */
  void run();

  /**
   * Whether the turn goes on to the next due step after this one ran: true only for a step that
   * prepares the turn (pending edits taking effect) rather than doing the turn's work.
   */
  default boolean preparesTurn() {
    return false;
  }
}
