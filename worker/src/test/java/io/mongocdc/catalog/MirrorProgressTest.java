package io.mongocdc.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** What {@code dev}'s progress area reads from the catalog. */
class MirrorProgressTest {

  @Test
  void theVisibleLagIsNowMinusTheNewestVisibleSourceCommitAndAbsentBeforeAny() {
    DataSource data = EmbeddedPostgresSupport.newCatalogDatabase("progress");
    Catalog catalog = Catalog.open(data);
    new PostgresCheckpointCatalog(catalog).register(new MirrorConfig("orders", "orders-mongo", "warehouse-pg", "shop",
        List.of("orders"), "public", MirrorSettings.defaults()));
    MirrorProgress progress = new MirrorProgress(data);
    assertEquals(Optional.empty(), progress.visibleLagSeconds("orders"), "nothing is visible yet");

    catalog.recordVisibleThrough("orders", Instant.now().minusSeconds(600));
    long lag = progress.visibleLagSeconds("orders").orElseThrow();
    assertTrue(lag >= 600 && lag < 3_600, "ten minutes behind, read as " + lag + " s");
    assertEquals(Optional.empty(), progress.visibleLagSeconds("another"), "another mirror's lag is its own");
  }
}
