package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Field rules as settings: what an edit does to them, and what is refused with its reason. */
class FieldRuleSettingsTest {

  private static MirrorSettings withRules(Map<String, Object> fieldRules) {
    return MirrorSettings.defaults().apply(EditRequest.fromJson(Map.of("fieldRules", fieldRules)));
  }

  @Test
  void anEditGivesPathsTheirRuleAndRemoveFieldRulesTakesThemAway() {
    MirrorSettings settings = withRules(Map.of("orders", Map.of("exclude", List.of("customer.address"),
        "hash", List.of("customer.email"))));
    assertEquals(new FieldRules(List.of("customer.address"), List.of("customer.email")),
        settings.fieldRules().of("orders"));

    MirrorSettings moved = settings.apply(EditRequest.fromJson(Map.of("fieldRules",
        Map.of("orders", Map.of("exclude", List.of("customer.email"))))));
    assertEquals(new FieldRules(List.of("customer.address", "customer.email"), List.of()), moved.fieldRules().of("orders"));
    assertEquals(Map.of("orders", new FieldRules(List.of("customer.email"), List.of())),
        moved.fieldRules().addedSince(settings.fieldRules()).collections());

    MirrorSettings removed = moved.apply(EditRequest.fromJson(Map.of("removeFieldRules",
        Map.of("orders", List.of("customer.address", "customer.email")))));
    assertTrue(removed.fieldRules().isEmpty(), removed.fieldRules().toString());
  }

  @Test
  void theIdAnEmptySegmentAndAPathWithTwoRulesAreRefused() {
    List<String> problems = withRules(Map.of("orders", Map.of("exclude", List.of("_id", "a..b", "both"),
        "hash", List.of("_id.x", "both")))).problems();
    assertTrue(problems.stream().anyMatch(p -> p.contains("'_id'") && p.contains("neither excluded nor hashed")),
        problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.contains("'_id.x'")), problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.contains("'a..b' has an empty segment")), problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.contains("'both' is both excluded and hashed")), problems.toString());
  }

  @Test
  void aRuleThatLeavesATypedColumnNothingToReadIsRefusedWithTheReason() {
    MirrorSettings columns = MirrorSettings.defaults().withColumns(new TypedColumnSettings(Map.of("orders", List.of(
        new TypedColumn("email", "text", "customer.email"), new TypedColumn("city", "text", "customer.address.city"),
        new TypedColumn("sku", "text", "items.0.sku"), new TypedColumn("total", "numeric", "total"))), null));
    List<String> problems = columns.apply(EditRequest.fromJson(Map.of("fieldRules", Map.of("orders",
        Map.of("exclude", List.of("customer.address", "items.sku"), "hash", List.of("total")))))).problems();
    assertTrue(problems.stream().anyMatch(p -> p.contains("excluding 'customer.address' leaves typed column 'city'")),
        problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.contains("excluding 'items.sku' leaves typed column 'sku'")),
        problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.contains("hashing 'total' leaves typed column 'total'")),
        problems.toString());
    assertEquals(3, problems.size(), problems.toString());

    // A text column at the hashed path itself reads the hash.
    assertEquals(List.of(), columns.apply(EditRequest.fromJson(Map.of("fieldRules", Map.of("orders",
        Map.of("hash", List.of("customer.email")))))).problems());
    List<String> parent = columns.apply(EditRequest.fromJson(Map.of("fieldRules", Map.of("orders",
        Map.of("hash", List.of("customer")))))).problems();
    assertEquals(2, parent.size(), parent.toString());
  }

  @Test
  void aRuleOfACollectionTheDatabaseLacksIsAProblemNamingTheOneMeant() {
    FieldRuleSettings rules = new FieldRuleSettings(Map.of("Users", new FieldRules(List.of("email"), List.of()),
        "orders", new FieldRules(List.of(), List.of("email")), "archive", new FieldRules(List.of("x"), List.of())));
    List<String> many = new java.util.ArrayList<>(List.of("orders", "users"));
    for (int i = 0; i < 30; i++) {
      many.add("c" + i);
    }
    assertEquals(List.of("fieldRules: 'Users' is not a collection of demo, so its rules would apply to nothing; did you"
        + " mean 'users'? (names are exact, without the database); the collections of demo are orders, users, archive"),
        rules.collectionProblems("demo", List.of("orders", "users", "archive")));
    List<String> capped = rules.collectionProblems("demo", many);
    assertEquals(2, capped.size(), capped.toString());
    assertTrue(capped.get(0).endsWith("the collections of demo are orders, users, c0, c1, c2, c3, c4, c5, c6, c7, c8,"
        + " c9, c10, c11, c12, c13, c14, c15, c16, c17 and 12 more"), capped.get(0));
    assertEquals(List.of(), rules.collectionProblems("demo", List.of("archive", "orders", "Users")));
  }

  @Test
  void removingARuleThatIsNotThereIsRefused() {
    assertEquals(List.of("removeFieldRules.orders: 'email' has no rule"), MirrorSettings.defaults().fieldRules()
        .editProblems(EditRequest.fromJson(Map.of("removeFieldRules", Map.of("orders", List.of("email"))))));
  }

  @Test
  void aBadShapeIsNamed() {
    InvalidEditException bad = org.junit.jupiter.api.Assertions.assertThrows(InvalidEditException.class,
        () -> EditRequest.fromJson(Map.of("fieldRules", Map.of("orders", Map.of("drop", List.of("x"))))));
    assertTrue(bad.problems().get(0).contains("fieldRules.orders must be an object of 'exclude' and 'hash'"),
        bad.problems().toString());
  }

  @Test
  void anEditsJsonReadsBackTheSame() {
    EditRequest edit = EditRequest.fromJson(Map.of("fieldRules", Map.of("orders", Map.of("hash", List.of("e")))));
    assertEquals(edit, EditRequest.fromHistory(edit.toJson()));
  }
}
