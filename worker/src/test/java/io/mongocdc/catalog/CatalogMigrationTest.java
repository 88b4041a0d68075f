package io.mongocdc.catalog;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.BYTES_READ;
import static io.mongocdc.workflows.model.BatchFigures.END_REASON;
import static io.mongocdc.workflows.model.BatchFigures.FIRST_POSITION;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static io.mongocdc.workflows.model.BatchFigures.TABLES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.TableFigures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class CatalogMigrationTest {

  private static void exec(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  @Test
  void migratesFromEmptyAndReRunIsANoOp() throws SQLException {
    DataSource ds = EmbeddedPostgresSupport.newDatabase("mig");
    assertTrue(CatalogMigrator.migrate(ds) >= 1);
    assertEquals(0, CatalogMigrator.migrate(ds));
    Catalog.open(ds); // migrates again: still nothing to do
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "select count(*) from information_schema.tables where table_schema = 'mongo_cdc'")) {
      rs.next();
      // peers, mirrors, checkpoints, batches, table_counters, settings, mirror_status, flyway
      // history (V1); snapshot_collections, snapshot_partitions, snapshot_progress (V2);
      // batch_attempts, without settings (V4); mirror_tables (V6); quarantined_events (V7);
      // verify_runs, verify_ranges (V9); column_drift (V10)
      assertEquals(16, rs.getInt(1));
    }
  }

  private static final Path MIGRATIONS = Path.of("..", "catalog-migrations", "src", "main", "resources", "db",
      "migration", "catalog");

  @Test
  void aCatalogMigratedBeforeTheViewWasRepeatableEndsWithTheSameViewAndValidates() throws Exception {
    // The catalog as workers before R__mirror_status migrated it: the versioned migrations only.
    DataSource old = EmbeddedPostgresSupport.newDatabase("view");
    migrateAsWorkersBeforeTheRepeatableView(old, "latest");
    String before = view(old);

    assertEquals(1, CatalogMigrator.migrate(old), "this code applies the view's repeatable migration, and only it");

    assertEquals(before, view(old));
    CatalogMigrator.flyway(old).validate();
    assertEquals(0, CatalogMigrator.migrate(old));
    DataSource fresh = EmbeddedPostgresSupport.newDatabase("view");
    CatalogMigrator.migrate(fresh);
    assertEquals(before, view(fresh), "a catalog migrated from empty has the same view");
  }

  @Test
  void onlyTheRepeatableMigrationDefinesTheStatusViewBesidesTheVersionsThatAlreadyDid() throws Exception {
    Set<String> defining = new TreeSet<>();
    try (Stream<Path> files = Files.list(MIGRATIONS)) {
      for (Path file : files.toList()) {
        if (Files.readString(file).toLowerCase(java.util.Locale.ROOT).contains("view mongo_cdc.mirror_status as")) {
          defining.add(file.getFileName().toString().split("__")[0]);
        }
      }
    }
    assertEquals(new TreeSet<>(Set.of("V1", "V4", "V11", "V12", "V16", "R")), defining,
        "a change to mirror_status is an edit of R__mirror_status.sql, not a new versioned migration");
  }

  /**
   * Migrates {@code ds} up to version {@code target} as workers before R__mirror_status did: with
   * the versioned migrations only (Flyway applies a repeatable migration whatever the target, and
   * the view it defines reads columns of later versions).
   */
  private static void migrateAsWorkersBeforeTheRepeatableView(DataSource ds, String target) throws IOException {
    Path versioned = Files.createTempDirectory("catalog-versioned");
    try (Stream<Path> files = Files.list(MIGRATIONS)) {
      for (Path file : files.filter(f -> f.getFileName().toString().startsWith("V")).toList()) {
        Files.copy(file, versioned.resolve(file.getFileName()));
      }
    }
    org.flywaydb.core.Flyway.configure().configuration(CatalogMigrator.flyway(ds).getConfiguration())
        .locations("filesystem:" + versioned).target(target).load().migrate();
  }

  /** The view's columns with their types, its definition and its comment. */
  private static String view(DataSource ds) throws SQLException {
    StringBuilder text = new StringBuilder();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("select column_name, data_type from information_schema.columns"
          + " where table_schema = 'mongo_cdc' and table_name = 'mirror_status' order by ordinal_position")) {
        while (rs.next()) {
          text.append(rs.getString(1)).append(' ').append(rs.getString(2)).append('\n');
        }
      }
      try (ResultSet rs = st.executeQuery("select pg_get_viewdef('mongo_cdc.mirror_status'::regclass, true),"
          + " obj_description('mongo_cdc.mirror_status'::regclass)")) {
        rs.next();
        text.append(rs.getString(1)).append('\n').append(rs.getString(2));
      }
    }
    assertTrue(text.indexOf("visible_lag") > 0 && text.indexOf("waiting_since") > 0, text.toString());
    return text.toString();
  }

  @Test
  void batchesFromBeforeV4LoseTheirMadeUpZeroCounts() throws SQLException, IOException {
    DataSource ds = EmbeddedPostgresSupport.newDatabase("mig");
    migrateAsWorkersBeforeTheRepeatableView(ds, "3");
    exec(ds, "insert into mongo_cdc.peers (name, kind) values ('src', 'mongodb'), ('dst', 'postgres')");
    exec(ds, "insert into mongo_cdc.mirrors (name, source_peer, destination_peer, status)"
        + " values ('old', 'src', 'dst', 'running')");
    exec(ds, "insert into mongo_cdc.batches (mirror_name, batch_id, started_at, records)"
        + " values ('old', 1, now(), 10), ('old', 2, now(), 0)");

    CatalogMigrator.migrate(ds);

    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select batch_id, inserts, deletes from mongo_cdc.batches order by batch_id")) {
      assertTrue(rs.next());
      assertEquals(null, rs.getObject(2), "10 records, none of them counted by operation: unknown, not 0");
      assertEquals(null, rs.getObject(3));
      assertTrue(rs.next());
      assertEquals(0L, rs.getLong(2), "an empty batch really had no inserts");
      assertEquals("running", Catalog.open(ds).mirror("old").orElseThrow().getStatus(), "the state is kept");
    }
  }

  @Test
  void mirrorsFromBeforeV6GetTheirTablesRecordedAndTheOlderMirrorKeepsASharedOne() throws SQLException, IOException {
    DataSource ds = EmbeddedPostgresSupport.newDatabase("mig");
    migrateAsWorkersBeforeTheRepeatableView(ds, "5");
    exec(ds, "insert into mongo_cdc.peers (name, kind) values ('src', 'mongodb'), ('dst', 'postgres')");
    String config = "{\"name\":\"%s\",\"destinationPeer\":\"dst\",\"sourceDatabase\":\"shop\","
        + "\"collections\":%s,\"destinationSchema\":\"public\"}";
    exec(ds, "insert into mongo_cdc.mirrors (name, source_peer, destination_peer, config, created_at) values"
        + " ('old', 'src', 'dst', '" + String.format(config, "old", "[\"orders\"]") + "', now() - interval '2 days'),"
        + " ('newer', 'src', 'dst', '" + String.format(config, "newer", "[\"orders\", \"" + "x".repeat(60) + "\"]")
        + "', now() - interval '1 day'),"
        + " ('everything', 'src', 'dst', '" + String.format(config, "everything", "[]") + "', now())");
    // An all-collections mirror's tables are known from what its batches wrote.
    exec(ds, "insert into mongo_cdc.table_counters (mirror_name, destination_table, source_namespace)"
        + " values ('everything', 'shop.items', 'shop.items')");

    CatalogMigrator.migrate(ds);

    List<String> rows = new java.util.ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select destination_peer, destination_schema, destination_table, mirror_name,"
            + " source_namespace from mongo_cdc.mirror_tables order by destination_table")) {
      while (rs.next()) {
        rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4) + " "
            + rs.getString(5));
      }
    }
    // The 66-byte name is shortened by the worker: the migration cannot know it and leaves it out.
    assertEquals(List.of("dst public shop.items everything shop.items", "dst public shop.orders old shop.orders"), rows);
  }

  @Test
  void catalogNewerThanTheCodeFailsFast() throws SQLException {
    DataSource ds = EmbeddedPostgresSupport.newDatabase("mig");
    CatalogMigrator.migrate(ds);
    exec(
        ds,
        "insert into mongo_cdc.flyway_schema_history (installed_rank, version, description, type,"
            + " script, checksum, installed_by, execution_time, success) values (100, '999',"
            + " 'from the future', 'SQL', 'V999__from_the_future.sql', 1, 'test', 1, true)");
    CatalogException e = assertThrows(CatalogException.class, () -> CatalogMigrator.migrate(ds));
    assertTrue(e.getMessage().contains("newer than this worker"), e.getMessage());
    assertTrue(e.getMessage().contains("999"), e.getMessage());
  }

  @Test
  void halfMigratedCatalogFailsFast() throws SQLException {
    DataSource ds = EmbeddedPostgresSupport.newDatabase("mig");
    CatalogMigrator.migrate(ds);
    exec(ds, "update mongo_cdc.flyway_schema_history set success = false where version = '1'");
    CatalogException e = assertThrows(CatalogException.class, () -> CatalogMigrator.migrate(ds));
    assertTrue(e.getMessage().contains("half-migrated"), e.getMessage());
  }

  @Test
  void schemaWithTablesButNoHistoryFailsFast() throws SQLException {
    DataSource ds = EmbeddedPostgresSupport.newDatabase("mig");
    exec(ds, "create schema mongo_cdc; create table mongo_cdc.peers (name text)");
    CatalogException e = assertThrows(CatalogException.class, () -> CatalogMigrator.migrate(ds));
    assertTrue(e.getMessage().contains("cannot be migrated"), e.getMessage());
  }

  @Test
  void changedMigrationFailsValidation() throws SQLException {
    DataSource ds = EmbeddedPostgresSupport.newDatabase("mig");
    CatalogMigrator.migrate(ds);
    exec(ds, "update mongo_cdc.flyway_schema_history set checksum = 42 where version = '1'");
    CatalogException e = assertThrows(CatalogException.class, () -> CatalogMigrator.migrate(ds));
    assertTrue(e.getMessage().toLowerCase().contains("checksum"), e.getMessage());
  }

  @Test
  void peersRefuseCredentials() {
    DataSource ds = EmbeddedPostgresSupport.newDatabase("mig");
    Catalog catalog = Catalog.open(ds);
    catalog.upsertPeer("src", Catalog.PeerKind.MONGODB, "{\"hosts\": \"h1:27017\", \"replicaSet\": \"rs0\"}");
    assertThrows(
        IllegalArgumentException.class,
        () -> catalog.upsertPeer("x", Catalog.PeerKind.POSTGRES, "{\"password\": \"p\"}"));
    assertThrows(
        IllegalArgumentException.class,
        () -> catalog.upsertPeer("x", Catalog.PeerKind.POSTGRES, "{\"db_password\": \"p\"}"));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            catalog.upsertPeer(
                "x", Catalog.PeerKind.MONGODB, "{\"uri\": \"mongodb://u:secret@h/\"}"));
  }

  @Test
  void mirrorStatusViewShowsStateBatchesAndCheckpoint() throws SQLException {
    DataSource ds = EmbeddedPostgresSupport.newDatabase("mig");
    Catalog catalog = Catalog.open(ds);
    catalog.upsertPeer("src", Catalog.PeerKind.MONGODB, "{}");
    catalog.upsertPeer("dst", Catalog.PeerKind.POSTGRES, "{}");
    catalog.createMirror("m1", "src", "dst", "{\"collections\": [\"app.users\"]}");
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    for (int b = 1; b <= 3; b++) {
      catalog
          .batches()
          .record(
              new BatchReport("m1", b, start.plusSeconds(10L * b), start.plusSeconds(10L * b + 2),
                  ResumeToken.of("8200000002000000012B0404"), null, BatchFigures.zero()
                      .with(RECORDS_DELIVERED, 1000).with(BYTES_READ, 100_000)
                      .with(FIRST_POSITION, "8200000001000000012B0404").with(END_REASON, "IDLE").with(ATTEMPTS, 1)
                      .with(TABLES, Map.of("app.users", new TableFigures("app.users", 1000, 0, 0, 0, 100_000)))));
    }
    catalog.checkpoints().commit("m1", 3, StreamPosition.after(ResumeToken.of("8200000002000000012B0404")));
    assertTrue(catalog.recordMirrorState("m1", MirrorPhase.FAILED, "failed: boom", "boom", "TRANSIENT", 5,
        start.plusSeconds(60), 7, "{}", null, null));
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "select state, last_batch_id, committed_batch_id, records_per_second,"
                    + " checkpoint_age is not null, last_error, rate_batches"
                    + " from mongo_cdc.mirror_status where mirror = 'm1'")) {
      assertTrue(rs.next());
      assertEquals("failed", rs.getString(1));
      assertEquals(3, rs.getLong(2));
      assertEquals(3, rs.getLong(3));
      assertEquals(500.0, rs.getDouble(4), 0.01);
      assertTrue(rs.getBoolean(5));
      assertEquals("boom", rs.getString(6));
      assertEquals(3, rs.getLong(7));
    }
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "select records, inserts, last_batch_id from mongo_cdc.table_counters"
                    + " where mirror_name = 'm1'")) {
      assertTrue(rs.next());
      assertEquals(3000, rs.getLong(1));
      assertEquals(3000, rs.getLong(2));
      assertEquals(3, rs.getLong(3));
    }
  }
}
