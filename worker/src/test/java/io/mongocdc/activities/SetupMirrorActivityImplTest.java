package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.source.scripted.ScriptedSnapshotSource;
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

  /** The scripted source, over a database that holds {@code orders} and {@code users}. */
  private static final class ShopSource implements MirrorSourceFactory {
    private final ScriptedSource scripted =
        new ScriptedSource(ScriptedChangeStream.of(List.of()), Fixtures.BEFORE_EVENTS, Fixtures.peers());

    @Override
    public void validate(MirrorConfig mirror) {
      scripted.validate(mirror);
    }

    @Override
    public ChangeStreamOpener openerFor(MirrorConfig mirror) {
      return scripted.openerFor(mirror);
    }

    @Override
    public SnapshotSource snapshotSource(MirrorConfig mirror) {
      return new ScriptedSnapshotSource().createCollection("orders").createCollection("users");
    }

    @Override
    public StreamPosition currentPosition(MirrorConfig mirror) {
      return scripted.currentPosition(mirror);
    }
  }

  private final InMemoryCatalog catalog = new InMemoryCatalog();
  private final SetupMirrorActivityImpl setup = new SetupMirrorActivityImpl(Fixtures.peers(), new ShopSource(),
      new InMemoryDestination(), catalog, new MirrorRedactions(null, catalog));

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
    ApplicationFailure refused = assertThrows(ApplicationFailure.class,
        () -> setup.validateMirror(everyCollection("Users", "demo.users", "orders")));
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
    ApplicationFailure refused = assertThrows(ApplicationFailure.class, () -> setup.validateMirror(listed));
    assertTrue(refused.getOriginalMessage().contains("settings.fieldRules: 'users' is not one of the mirror's"
        + " collections [orders]"), refused.getOriginalMessage());
  }
}
