package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Pending edits take effect, in arrival order, before the turn's work: added collections are set
 * up, typed columns aligned, then the settings change; a collection whose history an edit turned
 * on is copied again, and rows written before added field rules are queued for their rewrite.
 * Edits that arrive while typed columns are aligned for earlier ones are aligned (and applied) in
 * a round of their own.
 */
final class PendingEditsStep implements Step {

  /**
   * The change id of applying, after an alignment of typed columns, only the edits it aligned: those
   * that arrived during it wait for their own. Recorded only when an edit arrived during one.
   */
  static final String COLUMN_EDITS_IN_ORDER_CHANGE = "column-edits-in-order";
  /**
   * The change id of copying a collection again when an edit turns its history on, so its history
   * holds a row at every current row's position. Recorded only when an edit turns history on.
   */
  static final String HISTORY_ON_COPIES_CHANGE = "history-on-copies";
  /**
   * The change id of rewriting, before any batch, the rows past the checkpoint that a cancelled or
   * failed batch wrote before added field rules. Recorded only when an edit adds field rules.
   */
  static final String REWRITE_PAST_CHECKPOINT_CHANGE = "rewrite-past-checkpoint";
  /**
   * The change id of checking, for a mirror of every collection, that the field rules an edit adds
   * name collections the source has. Recorded only when such an edit applies.
   */
  static final String RULED_COLLECTIONS_EXIST_CHANGE = "ruled-collections-exist";

  private static final Logger log = Workflow.getLogger(PendingEditsStep.class);

  private final Flow flow;
  private final CarriedState carried;
  private final PendingEdits edits;

  PendingEditsStep(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
    this.edits = flow.state.edits;
  }

  /**
   * With no edit pending a round changes nothing and calls nothing. A partition copied beside the
   * batches writes by the settings it started with: edits wait until none is under way (the copier
   * starts no more meanwhile, and the batches go on).
   */
  @Override
  public boolean due() {
    return edits.count() > 0 && !flow.copying.running();
  }

  @Override
  public boolean preparesTurn() {
    return true;
  }

  @Override
  public void run() {
    while (round()) {
      // the edits that arrived during the round's alignment go next
    }
  }

  /** @return whether edits arrived during the round's alignment and are still pending */
  private boolean round() {
    List<String> historyBefore = List.copyOf(carried.config.settings().history().collections());
    FieldRuleSettings rulesBefore = carried.config.settings().fieldRules();
    boolean more = applyEdits();
    copyCollectionsWhoseHistoryTurnedOn(historyBefore);
    rewriteRowsBeforeAddedRules(rulesBefore);
    return more;
  }

  private boolean applyEdits() {
    List<String> resynced = edits.collectionsToResync();
    if (!resynced.isEmpty() && carried.config.collections().isEmpty()) {
      List<String> existing = flow.activities.listSourceCollections(carried.config);
      List<String> missing = resynced.stream().filter(c -> !existing.contains(c)).toList();
      if (!missing.isEmpty()) {
        edits.rejectResyncOf(missing, Workflow.currentTimeMillis());
        log.warn("mirror {}: collections {} not copied again: the source has no such collection", flow.name(), missing);
      }
    }
    List<String> added = edits.collectionsToAdd();
    if (!added.isEmpty() && collectionsAccepted(added)) {
      flow.activities.createDestinationTables(edits.nextConfig());
      log.info("mirror {}: adding collections {} from {}", flow.name(), added, carried.checkpoint.describe());
    }
    rejectRulesOfMissingCollections();
    if (edits.changeColumns() && SharedChanges.typedColumns()) {
      // Before the edits apply: a failure leaves them pending, and the batch after them finds its columns.
      int aligned = edits.count();
      TypedColumnsAligned first = flow.activities.alignTypedColumns(
          TypedColumnsRequest.first(carried.config, edits.nextConfig(), edits.columnsToDrop()));
      if (flow.state.typedColumnsAligned(first)) {
        log.info("mirror {}: typed columns filled", flow.name());
      }
      if (edits.count() > aligned && columnEditsInOrderVersion()) {
        edits.apply(aligned);
        carried.typedColumnIndexesPending = !carried.config.settings().columns().indexes().isEmpty();
        return true;
      }
      carried.typedColumnIndexesPending = !edits.nextConfig().settings().columns().indexes().isEmpty();
    }
    edits.apply();
    return false;
  }

  /**
   * A mirror of every collection lists none of its own, so the collections field rules name are
   * checked against the source's when the edit applies: a rule of a collection the source does not
   * have would protect nothing (a misspelt {@code Users}, a {@code demo.users}). Such edits lose
   * their added rules, and status lists the refusal with the reason; the rest of them applies.
   */
  private void rejectRulesOfMissingCollections() {
    if (!carried.config.collections().isEmpty() || !edits.changeFieldRules()) {
      return;
    }
    FieldRuleSettings added = edits.nextConfig().settings().fieldRules()
        .addedSince(carried.config.settings().fieldRules());
    if (added.isEmpty()
        || Workflow.getVersion(RULED_COLLECTIONS_EXIST_CHANGE, Workflow.DEFAULT_VERSION, 1) != 1) {
      return;
    }
    List<String> problems = added.collectionProblems(carried.config.sourceDatabase(),
        flow.activities.listSourceCollections(carried.config));
    if (!problems.isEmpty()) {
      String reason = String.join("; ", problems);
      edits.rejectAddedFieldRules(Workflow.currentTimeMillis(), reason);
      log.warn("mirror {}: field rules not added: {}", flow.name(), reason);
    }
  }

  /** Histories from before it applied every pending edit after an alignment, those that arrived during it too. */
  private static boolean columnEditsInOrderVersion() {
    return Workflow.getVersion(COLUMN_EDITS_IN_ORDER_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /**
   * Validates the mirror with the added collections. A collection the source or destination
   * refuses is dropped from the pending edits and reported as a rejected edit; the rest of the
   * edits still apply. Any other failure is thrown: the step is tried again later.
   */
  private boolean collectionsAccepted(List<String> added) {
    try {
      flow.activities.validateMirror(edits.nextConfig());
      return true;
    } catch (ActivityFailure e) {
      if (!Failures.isInvalidConfiguration(e)) {
        throw e;
      }
      edits.rejectAddedCollections(Workflow.currentTimeMillis(), Failures.describe(e));
      log.warn("mirror {}: collections {} not added: {}", flow.name(), added, Failures.describe(e));
      return false;
    }
  }

  /**
   * A collection whose history an applied edit turned on is copied again (and swept), as a
   * one-collection resync is: every current row gets a history row at the copy's position, so the
   * history answers "the state at time T" for any T from then on, across the gap while it was off.
   */
  private void copyCollectionsWhoseHistoryTurnedOn(List<String> before) {
    List<String> turnedOn = flow.state.copies.historyTurnedOnSince(before);
    if (!turnedOn.isEmpty() && Workflow.getVersion(HISTORY_ON_COPIES_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1) {
      flow.state.copies.copyAgain(turnedOn);
      log.info("mirror {}: history turned on for {}: copying them again from {} so their history starts with"
          + " every current document", flow.name(), turnedOn, carried.checkpoint.describe());
    }
  }

  /**
   * Field rules an applied edit added reach the rows written before them: their rewrite is queued,
   * up to the committed checkpoint, where the rules took effect, after the rewrite of the rows past
   * it (see {@link FieldRuleRewrite}), which goes before any batch.
   */
  private void rewriteRowsBeforeAddedRules(FieldRuleSettings before) {
    FieldRuleSettings now = carried.config.settings().fieldRules();
    if (now.equals(before)) {
      return;
    }
    flow.state.rememberHashedPaths(now);
    if (!SharedChanges.fieldRuleRewrite()) {
      return;
    }
    FieldRuleSettings added = now.addedSince(before);
    boolean rewrite = !added.isEmpty() && carried.checkpoint != null;
    // The rows hold hashes where the rules before hashed: an added rule reaching them too leaves them.
    Map<String, List<String>> hashedAlready = before.hashedPaths();
    if (rewrite) {
      // Queued before the catalog is told, which waits for an activity: status never shows the added
      // rules without their rewrite, and the catalog's record of the rows holds it.
      carried.fieldRuleRewrites.add(FieldRuleRewrite.of(added, carried.checkpoint, hashedAlready));
    }
    // The catalog shows the new rules at once: a verify's repair checks them there before it writes.
    flow.recorder.record();
    if (rewrite) {
      if (Workflow.getVersion(REWRITE_PAST_CHECKPOINT_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1) {
        // Rows a cancelled or failed batch committed past the checkpoint: its replay writes the
        // same positions, which leaves them as they are, so they are rewritten first. (Asked after
        // the record, where histories recorded it.)
        carried.fieldRuleRewrites.add(carried.fieldRuleRewrites.size() - 1,
            FieldRuleRewrite.pastCheckpoint(added, carried.checkpoint, hashedAlready));
      }
      log.info("mirror {}: field rules {} added; rewriting the rows written up to {}", flow.name(),
          added.collections(), carried.checkpoint.describe());
    }
  }
}
