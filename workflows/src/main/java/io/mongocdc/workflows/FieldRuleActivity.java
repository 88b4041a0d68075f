package io.mongocdc.workflows;

import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.MirrorConfig;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The field rules' work outside batches: rows written before a rule was added get it. */
@ActivityInterface
public interface FieldRuleActivity {

  /**
   * Applies {@code rewrite}'s rules to a bounded slice of the rows it has still to do, in short
   * transactions, heartbeating, and records its progress in the catalog; idempotent for a slice
   * (a row is rewritten only once: the slice's end is where the next call goes on).
   *
   * @param mirror the mirror with the rules in effect now (for the hash key and typed columns)
   * @return the rewrite with its new place; {@link FieldRuleRewrite#done} once nothing is left
   */
  @ActivityMethod(name = ActivityNames.REWRITE_FIELD_RULES)
  FieldRuleRewrite rewriteFieldRules(MirrorConfig mirror, FieldRuleRewrite rewrite);
}
