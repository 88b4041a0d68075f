package io.mongocdc.workflows;

import io.temporal.workflow.Workflow;

/**
 * Change ids that more than one step takes part in: the change reached several steps at once, and
 * a history records the id once, at whichever of them asked first. A change of one step is that
 * step's own constant.
 */
final class SharedChanges {

  /**
   * The change id of typed columns' steps (set up with indexes, aligned on edit, filled, indexed):
   * older histories have none.
   */
  static final String TYPED_COLUMNS_CHANGE = "typed-columns";
  /**
   * The change id of rewriting the rows written before field rules were added (queued when the
   * edit applies, rewritten by slices). Recorded only when an edit adds field rules to a mirror
   * that is set up.
   */
  static final String FIELD_RULE_REWRITE_CHANGE = "field-rule-rewrite";

  private SharedChanges() {}

  static boolean typedColumns() {
    return Workflow.getVersion(TYPED_COLUMNS_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  static boolean fieldRuleRewrite() {
    return Workflow.getVersion(FIELD_RULE_REWRITE_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }
}
