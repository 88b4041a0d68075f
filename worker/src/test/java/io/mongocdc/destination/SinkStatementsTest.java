package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.ColumnType;
import io.mongocdc.decode.Namespace;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sink's SQL as text: what each statement says, without a database. */
class SinkStatementsTest {

  private static final DestinationTable ORDERS = new DestinationTable(new Namespace("shop", "orders"), "s", "shop.orders");
  private static final String T = "\"s\".\"shop.orders\"";
  private static final String W = "pg_temp.\"mongo_cdc_stage_3\"";

  /** The insert's conflict clause, the same for soft and hard deletes. */
  private static final String ON_CONFLICT = " on conflict (\"_id\") do update set"
      + " \"doc\" = case when excluded.\"_deleted\" then t.\"doc\" else excluded.\"doc\" end,"
      + " \"_raw_doc\" = case when excluded.\"_deleted\" then t.\"_raw_doc\" else excluded.\"_raw_doc\" end,"
      + " \"_position\" = excluded.\"_position\", \"_commit_time\" = excluded.\"_commit_time\","
      + " \"_deleted\" = excluded.\"_deleted\", \"_synced_at\" = now()"
      + " where t.\"_position\" < excluded.\"_position\" returning 1)";

  private static SinkStatements plain(DeleteMode mode) {
    return new SinkStatements(ORDERS, 3, List.of(), mode, false);
  }

  @Test
  void softMergeUpdatesOnlyOlderRowsAndInsertsMissingKeys() {
    assertEquals("with upd as (update " + T + " t set"
        + " \"doc\" = case when w.op = 'd' then t.\"doc\" else w.doc::jsonb end,"
        + " \"_raw_doc\" = case when w.op = 'd' then t.\"_raw_doc\" else w.raw_doc end,"
        + " \"_position\" = w.position, \"_commit_time\" = w.commit_time,"
        + " \"_deleted\" = w.op = 'd', \"_synced_at\" = now()"
        + " from " + W + " w where t.\"_id\" = w.id and t.\"_position\" < w.position returning 1),"
        + " ins as (insert into " + T + " as t"
        + " (\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\", \"_deleted\", \"_synced_at\")"
        + " select w.id, w.doc::jsonb, w.raw_doc, w.position, w.commit_time, w.op = 'd', now() from " + W
        + " w where not exists (select 1 from " + T + " e where e.\"_id\" = w.id)"
        + ON_CONFLICT
        + " select 0 + (select count(*) from upd), (select count(*) from ins)",
        plain(DeleteMode.SOFT).merge());
  }

  @Test
  void hardMergeRemovesRowsANewerDeleteNamesAndNeverInsertsADelete() {
    assertEquals("with del as (delete from " + T + " t using " + W + " w where w.op = 'd' and t.\"_id\" = w.id"
        + " and t.\"_position\" < w.position returning 1),"
        + " upd as (update " + T + " t set"
        + " \"doc\" = case when w.op = 'd' then t.\"doc\" else w.doc::jsonb end,"
        + " \"_raw_doc\" = case when w.op = 'd' then t.\"_raw_doc\" else w.raw_doc end,"
        + " \"_position\" = w.position, \"_commit_time\" = w.commit_time,"
        + " \"_deleted\" = w.op = 'd', \"_synced_at\" = now()"
        + " from " + W + " w where t.\"_id\" = w.id and t.\"_position\" < w.position and w.op <> 'd' returning 1),"
        + " ins as (insert into " + T + " as t"
        + " (\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\", \"_deleted\", \"_synced_at\")"
        + " select w.id, w.doc::jsonb, w.raw_doc, w.position, w.commit_time, w.op = 'd', now() from " + W
        + " w where not exists (select 1 from " + T + " e where e.\"_id\" = w.id) and w.op <> 'd'"
        + ON_CONFLICT
        + " select (select count(*) from del) + (select count(*) from upd), (select count(*) from ins)",
        plain(DeleteMode.HARD).merge());
  }

  @Test
  void everyWriteOfTheMergeIsGuardedByTheRowsPosition() {
    for (DeleteMode mode : DeleteMode.values()) {
      String merge = plain(mode).merge();
      // the update and (hard) delete only touch rows older than the staged record; the insert only missing keys
      assertEquals(mode == DeleteMode.HARD ? 2 : 1, count(merge, "t.\"_position\" < w.position"), merge);
      assertEquals(1, count(merge, "where not exists (select 1 from " + T + " e where e.\"_id\" = w.id)"), merge);
    }
  }

  @Test
  void typedColumnsAreStagedPositionallyAndKeptOnADelete() {
    List<ColumnProjection> columns = List.of(
        new ColumnProjection("total", ColumnType.NUMERIC, List.of("amount")),
        new ColumnProjection("we\"ird", ColumnType.TEXT, List.of("sku")));
    SinkStatements sql = new SinkStatements(ORDERS, 0, columns, DeleteMode.SOFT, false);
    String staging = "pg_temp.\"mongo_cdc_stage_0_" + Integer.toHexString(columns.hashCode()) + "\"";

    assertEquals("create temporary table if not exists " + staging + " (op text not null, id text collate \"C\" not null,"
        + " doc text, raw_doc text, position text collate \"C\" not null, commit_time timestamptz not null,"
        + " c0 numeric, c1 text, drift jsonb) on commit delete rows", sql.createStaging());
    assertEquals("copy " + staging + " (op, id, doc, raw_doc, position, commit_time, c0, c1, drift)"
        + " from stdin (format binary)", sql.copyIntoStaging());
    assertEquals("copy " + T + " (\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\","
        + " \"total\", \"we\"\"ird\", \"_drift\") from stdin (format binary)", sql.copyIntoTable());
    String merge = sql.merge();
    assertTrue(merge.contains("\"_synced_at\" = now(), \"total\" = case when w.op = 'd' then t.\"total\" else w.c0 end,"
        + " \"we\"\"ird\" = case when w.op = 'd' then t.\"we\"\"ird\" else w.c1 end,"
        + " \"_drift\" = case when w.op = 'd' then t.\"_drift\" else w.drift end from " + staging + " w"), merge);
    assertTrue(merge.contains("(\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\", \"_deleted\","
        + " \"_synced_at\", \"total\", \"we\"\"ird\", \"_drift\") select w.id, w.doc::jsonb, w.raw_doc, w.position,"
        + " w.commit_time, w.op = 'd', now(), w.c0, w.c1, w.drift from " + staging + " w"), merge);
  }

  @Test
  void withoutTypedColumnsTheStagingTableHasOnlyTheRecordsFields() {
    SinkStatements sql = plain(DeleteMode.SOFT);
    assertEquals("create temporary table if not exists " + W + " (op text not null, id text collate \"C\" not null,"
        + " doc text, raw_doc text, position text collate \"C\" not null, commit_time timestamptz not null)"
        + " on commit delete rows", sql.createStaging());
    assertEquals("copy " + W + " (op, id, doc, raw_doc, position, commit_time) from stdin (format binary)",
        sql.copyIntoStaging());
    assertEquals("copy " + T + " (\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\")"
        + " from stdin (format binary)", sql.copyIntoTable());
  }

  @Test
  void theMergeRoundTripAnalyzesMergesAndEmptiesStaging() {
    SinkStatements sql = plain(DeleteMode.SOFT);
    assertEquals("set local default_statistics_target = 10; analyze " + W + " (id); " + sql.merge() + "; truncate " + W,
        sql.analyzeMergeAndEmpty());
  }

  @Test
  void theProbeAsksWhetherTheTableIsEmptyAndWhetherANamedTableExists() {
    assertEquals("select not exists (select 1 from " + T + "), exists (select 1 from pg_class c"
        + " join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relname = ?)",
        plain(DeleteMode.SOFT).probe());
  }

  @Test
  void historyRowsAreStagedThenAppendedOncePerEventAndKey() {
    SinkStatements sql = new SinkStatements(ORDERS, 3, List.of(), DeleteMode.SOFT, true);
    String staging = "pg_temp.\"mongo_cdc_history_stage_3\"";
    String history = "\"s\".\"shop.orders_history\"";
    assertEquals(PostgresDestination.historyOf(ORDERS), sql.history());
    assertEquals("create temporary table if not exists " + staging
        + " (op text not null, id text collate \"C\" not null, position text collate \"C\" not null,"
        + " commit_time timestamptz not null, doc text, raw_doc text, doc_before text, update_description text)"
        + " on commit delete rows", sql.createHistoryStaging());
    assertEquals("copy " + staging + " (op, id, position, commit_time, doc, raw_doc, doc_before, update_description)"
        + " from stdin (format binary)", sql.copyIntoHistoryStaging());
    assertEquals("insert into " + history + " (\"_position\", \"_id\", \"_operation\", \"_commit_time\", \"doc\","
        + " \"_raw_doc\", \"doc_before\", \"updateDescription\") select position, id, op, commit_time, doc::jsonb,"
        + " raw_doc, doc_before::jsonb, update_description::jsonb from " + staging
        + " on conflict (\"_position\", \"_id\") do nothing; truncate " + staging, sql.appendHistory());
  }

  @Test
  void aTableWithoutHistoryHasNoHistoryStatements() {
    SinkStatements sql = plain(DeleteMode.SOFT);
    assertNull(sql.history());
    assertThrows(IllegalStateException.class, sql::appendHistory);
    assertThrows(IllegalStateException.class, sql::createHistoryStaging);
  }

  @Test
  void tableNamesAreQuotedEverywhere() {
    DestinationTable odd = new DestinationTable(new Namespace("d", "a\"b"), "s", "d.a\"b");
    SinkStatements sql = new SinkStatements(odd, 1, List.of(), DeleteMode.HARD, true);
    assertTrue(sql.merge().startsWith("with del as (delete from \"s\".\"d.a\"\"b\" t using"), sql.merge());
    assertTrue(sql.appendHistory().startsWith("insert into \"s\".\"d.a\"\"b_history\" ("), sql.appendHistory());
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }
}
