package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.InvalidEditException;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Edits of field rules checked against the rows written before them (issue 47): overlap between
 * rules is decided on paths, not on their text, and an edit that changes nothing is refused.
 */
class EditChecksFieldRulesTest {

  /** A set-up mirror of {@code users} whose rules are {@code rules}, every hash rule of which it has applied. */
  private static FlowState mirror(FieldRules rules) {
    FlowState state = new FlowState(CarriedState.initial(new MirrorConfig("m", "src", "dst", "shop", List.of("users"),
        "public", MirrorSettings.defaults().withFieldRules(new FieldRuleSettings(Map.of("users", rules))))));
    state.carried.checkpoint = Checkpoint.atOperationTime(1_700_000_000, 1);
    state.carried.setUp = true;
    state.rememberHashedPaths(state.carried.config.settings().fieldRules());
    return state;
  }

  private static Map<String, Object> hash(String path) {
    return Map.of("fieldRules", Map.of("users", Map.of("hash", List.of(path))));
  }

  private static String refusal(FlowState state, Map<String, Object> edit) {
    return String.join("\n", assertThrows(InvalidEditException.class, () -> new EditChecks(state).check(edit))
        .problems());
  }

  /**
   * Issue 47, finding 4: {@code customer.*} over a {@code customer.email} hash rule was accepted on
   * the text of the paths alone. On paths: a rule reaching values hashed now is accepted (a rewrite
   * leaves them as they are); one reaching values a removed rule hashed, or holding values hashed or
   * excluded, is refused with the reason, since no rewrite can make those rows what the stream writes.
   */
  @Test
  void overlappingHashRulesAreDecidedOnPathsNotOnTheirText() {
    FlowState hashing = mirror(new FieldRules(List.of("customer.address"), List.of("customer.email")));
    new EditChecks(hashing).check(hash("customer.*"));
    new EditChecks(hashing).check(hash("*.email"));
    new EditChecks(hashing).check(hash("customer.email.part"));
    new EditChecks(hashing).check(Map.of("fieldRules", Map.of("users", Map.of("exclude", List.of("customer")))));
    assertTrue(refusal(hashing, hash("customer")).contains("'customer' holds values 'customer.email' hashes or hashed"),
        refusal(hashing, hash("customer")));
    assertTrue(refusal(hashing, hash("*")).contains("'*' holds values 'customer.email'"), refusal(hashing, hash("*")));
    FlowState excluding = mirror(new FieldRules(List.of("customer.address"), List.of()));
    assertTrue(refusal(excluding, hash("customer")).contains("'customer' holds 'customer.address', which is excluded"),
        refusal(excluding, hash("customer")));

    // The rule removed: rows written while it was in effect hold hashes, later ones do not.
    FlowState removed = mirror(new FieldRules(List.of(), List.of("customer.email")));
    removed.carried.config = removed.carried.config.withSettings(MirrorSettings.defaults());
    for (String path : List.of("customer.*", "*.email", "*.*", "customer.email")) {
      assertTrue(refusal(removed, hash(path)).contains("hashed before, so rows written then hold hashes that a"
          + " rewrite would hash again"), path + ": " + refusal(removed, hash(path)));
    }
    new EditChecks(removed).check(hash("customer.email.part"));
    new EditChecks(removed).check(hash("customer.phone"));
  }

  /**
   * Issue 47, finding 11: an edit that changes nothing (a rule that is in effect already, a setting
   * at its value) was accepted as if it did something; it is refused, saying what is in effect.
   * One that changes something besides is accepted.
   */
  @Test
  void anEditThatChangesNothingIsRefusedSayingWhy() {
    FlowState state = mirror(new FieldRules(List.of("address"), List.of("email")));
    String again = refusal(state, hash("email"));
    assertTrue(again.contains("the edit changes nothing") && again.contains("'email' of users is hashed already"), again);
    String excluded = refusal(state, Map.of("fieldRules", Map.of("users", Map.of("exclude", List.of("address")))));
    assertTrue(excluded.contains("'address' of users is excluded already"), excluded);
    String size = refusal(state, Map.of("batchSize", MirrorSettings.defaults().batchSize()));
    assertTrue(size.contains("the edit changes nothing") && size.contains("batchSize"), size);
    assertTrue(refusal(state, Map.of("removeFieldRules", Map.of("users", List.of("phone")))).contains("'phone' has no rule"));

    state.carried.pendingEdits.add(new EditChecks(state).check(hash("phone")));
    assertTrue(refusal(state, hash("phone")).contains("'phone' of users is hashed already"),
        "a pending edit counts: " + refusal(state, hash("phone")));
    new EditChecks(state).check(Map.of("fieldRules", Map.of("users", Map.of("hash", List.of("email", "name")))));
    assertEquals(1, state.carried.pendingEdits.size());
  }
}
