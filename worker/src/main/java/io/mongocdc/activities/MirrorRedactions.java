package io.mongocdc.activities;

import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.privacy.MissingHashKeyException;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.MirrorConfig;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A worker's way to a mirror's field rules: the rules of its settings with the worker's hash key.
 * Before hashing for a mirror it checks that the key is the one the mirror hashes with (by the
 * fingerprint the catalog holds), so two workers with different keys never write two hashes of one
 * value into one table.
 */
public final class MirrorRedactions {

  private final HashKey key;
  private final CheckpointCatalog catalog;

  /** @param key the worker's hash key; null when it has none */
  public MirrorRedactions(HashKey key, CheckpointCatalog catalog) {
    this.key = key;
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  /**
   * The mirror's field rules, ready to apply.
   *
   * @throws InvalidMirrorConfigurationException if the mirror hashes and this worker has no key, or
   *     another key than the mirror's
   */
  public MirrorRedaction of(MirrorConfig mirror) {
    return of(mirror, mirror.settings().fieldRules());
  }

  /** {@code rules}, some of the mirror's, ready to apply; checked as {@link #of(MirrorConfig)} checks. */
  public MirrorRedaction of(MirrorConfig mirror, FieldRuleSettings rules) {
    return of(mirror, rules, Map.of());
  }

  /**
   * {@code rules}, some of the mirror's, for a rewrite of rows that hold hashes at {@code
   * hashedAlready} (see {@link MirrorRedaction#of(FieldRuleSettings, HashKey, Map)}); checked as
   * {@link #of(MirrorConfig)} checks.
   */
  public MirrorRedaction of(MirrorConfig mirror, FieldRuleSettings rules, Map<String, List<String>> hashedAlready) {
    if (rules.isEmpty()) {
      return MirrorRedaction.NONE;
    }
    if (rules.hashes()) {
      if (key == null) {
        throw new InvalidMirrorConfigurationException("mirror " + mirror.name() + ": "
            + new MissingHashKeyException().getMessage());
      }
      String held = catalog.recordFieldHashKeyFingerprint(mirror.name(), key.fingerprint());
      if (!key.fingerprint().equals(held)) {
        throw new InvalidMirrorConfigurationException("mirror " + mirror.name() + " hashes fields with the key of"
            + " fingerprint " + held + ", and this worker's key has fingerprint " + key.fingerprint() + ": give every"
            + " worker of the mirror the same " + HashKey.ENVIRONMENT_VARIABLE + " (or " + HashKey.PEERS_FILE_KEY
            + " in the peers file); a new key needs a new mirror");
      }
    }
    return MirrorRedaction.of(rules, key, hashedAlready);
  }
}
