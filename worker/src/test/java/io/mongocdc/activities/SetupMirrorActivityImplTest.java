package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.source.scripted.ScriptedSnapshotSource;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.FailureTypes;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.MirrorConfig;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Setting a mirror up: what {@code ValidateMirror} refuses before anything is created. */
class SetupMirrorActivityImplTest {

  private final InMemoryCatalog catalog = new InMemoryCatalog();
  /** Over a scripted source whose database holds {@code orders} and {@code users}. */
  private final SetupMirrorActivityImpl setup = new SetupMirrorActivityImpl(Fixtures.peers(),
      ScriptedSource.builder().peers(Fixtures.peers()).now(Fixtures.BEFORE_EVENTS).stream(ScriptedChangeStream.of(List.of()))
          .snapshots(mirror -> new ScriptedSnapshotSource().createCollection("orders").createCollection("users")).build(),
      new InMemoryDestination(), catalog, new MirrorRedactions(null, catalog));

  /** What ValidateMirror reaches the workflow as: the worker's interceptor classifies what it throws. */
  private ApplicationFailure refusal(MirrorConfig mirror) {
    RuntimeException thrown = assertThrows(RuntimeException.class, () -> setup.validateMirror(mirror));
    return FailureClassifier.classify(ActivityNames.VALIDATE_MIRROR, thrown);
  }

  /** A mirror of every collection of shop, excluding email in the collections named. */
  private static MirrorConfig everyCollection(String... ruled) {
    Map<String, FieldRules> rules = new java.util.TreeMap<>();
    for (String collection : ruled) {
      rules.put(collection, new FieldRules(List.of("email"), List.of()));
    }
    MirrorConfig orders = Fixtures.orders();
    return orders.withCollections(List.of())
        .withSettings(orders.settings().toBuilder().fieldRules(new FieldRuleSettings(rules)).build());
  }

  /**
   * Issue 47, finding 6: a mirror of every collection took rules for {@code Users} and {@code
   * demo.users}, which name no collection, applied nothing and said nothing.
   */
  @Test
  void aMirrorOfEveryCollectionIsRefusedARuleOfACollectionTheSourceDoesNotHave() {
    ApplicationFailure refused = refusal(everyCollection("Users", "demo.users", "orders"));
    assertEquals(FailureTypes.INVALID_CONFIGURATION, refused.getType());
    assertTrue(refused.isNonRetryable());
    String message = refused.getOriginalMessage();
    assertTrue(message.contains("fieldRules: 'Users' is not a collection of shop, so its rules would apply to"
        + " nothing; did you mean 'users'? (names are exact, without the database); the collections of shop are"
        + " orders, users"), message);
    assertTrue(message.contains("fieldRules: 'demo.users' is not a collection of shop"), message);
    assertTrue(!message.contains("'orders' is not"), message);

    setup.validateMirror(everyCollection("users", "orders"));
  }

  /** A mirror that lists its collections is held to them by its configuration, as before. */
  @Test
  void aMirrorOfNamedCollectionsIsRefusedARuleOfAnotherOne() {
    MirrorConfig listed = everyCollection("users").withCollections(List.of("orders"));
    ApplicationFailure refused = refusal(listed);
    assertTrue(refused.getOriginalMessage().contains("settings.fieldRules: 'users' is not one of the mirror's"
        + " collections [orders]"), refused.getOriginalMessage());
  }
}
