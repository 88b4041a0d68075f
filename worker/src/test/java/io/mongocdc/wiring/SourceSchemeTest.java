package io.mongocdc.wiring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The production wiring serves the source schemes registered on the class path, without naming them. */
class SourceSchemeTest {

  private final PeerRegistry peers = new ConfiguredPeerRegistry(Map.of(
      "gen", "generator:demo?seed=3&events=10", "loud", "GENERATOR:demo?seed=3&events=10"), Map.of());

  private static MirrorConfig mirror(String peer, String database) {
    return new MirrorConfig("m", peer, "pg", database, List.of(), "public", MirrorSettings.defaults());
  }

  @Test
  void theLoadGeneratorIsRegisteredAsTheGeneratorScheme() {
    assertEquals(List.of("generator"), SourceScheme.installed().stream().map(SourceScheme::scheme).toList());
  }

  @Test
  void aGeneratorPeerIsServedByTheGeneratorWhateverTheSchemesCase() {
    try (SourcesByPeerScheme sources = new ProductionPorts().sources(peers)) {
      sources.validate(mirror("gen", "demo"));
      // Only the generator knows which database its URI makes.
      assertEquals("the generator peer gen makes database demo, not shop; create the mirror with --database demo",
          assertThrows(InvalidMirrorConfigurationException.class, () -> sources.validate(mirror("gen", "shop")))
              .getMessage());
      assertEquals("the generator peer loud makes database demo, not shop; create the mirror with --database demo",
          assertThrows(InvalidMirrorConfigurationException.class, () -> sources.validate(mirror("loud", "shop")))
              .getMessage());
    }
  }
}
