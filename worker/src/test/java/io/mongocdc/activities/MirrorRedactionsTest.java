package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Workers of one mirror hash with one key: the first records its fingerprint, another key is refused. */
class MirrorRedactionsTest {

  private static final String FIRST = "the first worker's key, canary-1";
  private static final String SECOND = "the second worker's key, canary2";

  private final InMemoryCatalog catalog = new InMemoryCatalog();

  private static MirrorConfig hashing() {
    return Fixtures.orders(MirrorSettings.defaults().apply(EditRequest.fromJson(
        Map.of("fieldRules", Map.of("orders", Map.of("hash", List.of("email")))))));
  }

  @Test
  void aSecondKeyIsRefusedNamingBothFingerprintsAndNeitherKey() {
    HashKey first = HashKey.of(FIRST, "test");
    HashKey second = HashKey.of(SECOND, "test");
    assertNotNull(new MirrorRedactions(first, catalog).of(hashing()).of("orders"));
    assertNotNull(new MirrorRedactions(first, catalog).of(hashing()).of("orders"), "the same key again is fine");

    InvalidMirrorConfigurationException refused = assertThrows(InvalidMirrorConfigurationException.class,
        () -> new MirrorRedactions(second, catalog).of(hashing()));
    assertTrue(refused.getMessage().contains(first.fingerprint()) && refused.getMessage().contains(second.fingerprint()),
        refused.getMessage());
    assertTrue(refused.getMessage().contains(HashKey.ENVIRONMENT_VARIABLE), refused.getMessage());
    assertFalse(refused.getMessage().contains("canary"), refused.getMessage());
  }

  @Test
  void aMirrorWithoutHashRulesNeedsNoKeyAndOneWithoutRulesIsLeftAsItIs() {
    assertSame(MirrorRedaction.NONE, new MirrorRedactions(null, catalog).of(Fixtures.orders()));
    MirrorConfig excluding = Fixtures.orders(MirrorSettings.defaults().apply(EditRequest.fromJson(
        Map.of("fieldRules", Map.of("orders", Map.of("exclude", List.of("email")))))));
    assertNotNull(new MirrorRedactions(null, catalog).of(excluding).of("orders"));
    InvalidMirrorConfigurationException missing = assertThrows(InvalidMirrorConfigurationException.class,
        () -> new MirrorRedactions(null, catalog).of(hashing()));
    assertTrue(missing.getMessage().contains(HashKey.ENVIRONMENT_VARIABLE), missing.getMessage());
  }
}
