package io.mongocdc.faults;

import static org.junit.jupiter.api.Assertions.fail;

import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.privacy.FieldRedactor;
import io.mongocdc.testing.FieldPrivacyAudit;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import java.util.ArrayList;
import org.bson.BsonDocument;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fault suite's oracle over one scenario: at every catalog commit the checkpoint covers only
 * what the destination holds; at the end the destination equals the workload's model, rows never
 * moved back, the history holds each event once, and no attempt, pipeline thread or cursor is
 * left. See docs/reliability.md.
 */
final class FaultOracle {

  private final Scenario scenario;

  FaultOracle(Scenario scenario) {
    this.scenario = scenario;
  }

  void check() throws SQLException {
    if (!scenario.violations.isEmpty()) {
      fail("invariant violated during the run: " + scenario.violations);
    }
    ResumeToken last = scenario.workload.lastToken();
    StreamPosition position = SuiteCatalog.checkpoints().committed(scenario.mirror.name()).orElseThrow();
    if (!(position instanceof StreamPosition.AfterToken after) || after.token().compareTo(last) < 0) {
      fail("the committed checkpoint " + position + " is before the last event " + last);
    }
    try (Connection c = scenario.lane.destinationData.getConnection()) {
      if (!scenario.snapshots) {
        checkTable(c, RandomWorkload.ORDERS, scenario.workload.stateAt(null));
      } else {
        // Per collection copied: the documents from before its snapshot's start, at the start's
        // position, and every change after it.
        if (!scenario.snapshotStarts.containsKey(RandomWorkload.ORDERS)) {
          fail("the snapshot of " + RandomWorkload.ORDERS + " was never planned");
        }
        if (scenario.added != scenario.snapshotStarts.containsKey(Scenario.ADDED_COLLECTION)) {
          fail("a batch watched " + Scenario.ADDED_COLLECTION + ": " + scenario.added + ", its snapshot was planned: "
              + scenario.snapshotStarts.containsKey(Scenario.ADDED_COLLECTION));
        }
        for (Map.Entry<String, ResumeToken> start : new java.util.TreeMap<>(scenario.snapshotStarts).entrySet()) {
          checkTable(c, start.getKey(), scenario.workload.expectedRows(start.getKey(), start.getValue()));
        }
      }
      if (scenario.history) {
        checkHistory(c);
      }
      if (scenario.ordersRules != null && scenario.ruleEdits == null) {
        checkRulesLeftNothing(c);
      }
      if (scenario.ordersRules != null) {
        auditFieldPrivacy(c);
      }
      // Per _id, applied positions never went backwards (the trigger saw every update).
      try (PreparedStatement st = c.prepareStatement("select id, old_position, new_position"
          + " from public.faults_backwards where schema_name = ?")) {
        st.setString(1, scenario.mirror.destinationSchema());
        try (ResultSet rs = st.executeQuery()) {
          if (rs.next()) {
            fail("row " + rs.getString(1) + " moved back from position " + rs.getString(2) + " to "
                + rs.getString(3));
          }
        }
      }
    }
    if (!scenario.awaitNothingRunning(Duration.ofSeconds(30))) {
      fail("activity attempts still running after the workflow ended: " + scenario.running.values());
    }
    String prefix = "mongo-cdc-" + scenario.mirror.name() + "-";
    List<String> threads = Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive).map(Thread::getName).filter(n -> n.startsWith(prefix)).sorted().toList();
    if (!threads.isEmpty()) {
      fail("pipeline threads left alive: " + threads);
    }
    if (scenario.snapshots && scenario.source.openCursors() != 0) {
      fail(scenario.source.openCursors() + " snapshot cursors left open");
    }
  }

  /**
   * The history table of orders holds exactly one row per event of the workload, whatever the
   * faults replayed: its position, key and whether it is a delete; and every state row has the
   * history row of its position.
   */
  private void checkHistory(Connection c) throws SQLException {
    String historyTable = TableNaming.qualified(scenario.mirror.destinationSchema(),
        TableNaming.historyTableName(TableNaming.tableName(RandomWorkload.NS)));
    Map<String, RandomWorkload.Applied> expected = new HashMap<>();
    for (RandomWorkload.Applied a : scenario.workload.applied) {
      expected.put(a.token().data(), a);
    }
    int rows = 0;
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
        "select \"_position\", \"_id\", \"_operation\" from " + historyTable)) {
      while (rs.next()) {
        rows++;
        RandomWorkload.Applied want = expected.get(rs.getString(1));
        if (want == null) {
          fail("history row at " + rs.getString(1) + " of " + rs.getString(2) + " is no event of the source");
        }
        if (!want.key().equals(rs.getString(2)) || want.delete() != rs.getString(3).equals("delete")) {
          fail("history row at " + rs.getString(1) + " is " + rs.getString(3) + " of " + rs.getString(2)
              + ", the event is " + (want.delete() ? "a delete" : "a write") + " of " + want.key());
        }
      }
    }
    if (rows != expected.size()) {
      fail("the history has " + rows + " rows, the source " + expected.size() + " events");
    }
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select count(*) from " + scenario.table
        + " s where not exists (select 1 from " + historyTable + " h where h.\"_position\" = s.\"_position\""
        + " and h.\"_id\" = s.\"_id\")")) {
      rs.next();
      if (rs.getLong(1) != 0) {
        fail(rs.getLong(1) + " state rows have no history row of their position");
      }
    }
    scenario.count("history checks", 1);
  }

  /**
   * With field rules, whether fixed or edited during the run: no row of orders (state, tombstone,
   * history) nor quarantined event holds a value the rules in effect at the end protect in clear,
   * and none holds a value hashed twice (see {@link FieldPrivacyAudit}).
   */
  private void auditFieldPrivacy(Connection c) throws SQLException {
    Map<String, List<BsonDocument>> documents = new HashMap<>();
    List<BsonDocument> orders = new ArrayList<>();
    scenario.workload.existing.getOrDefault(RandomWorkload.ORDERS, Map.of()).values().forEach(orders::add);
    for (RandomWorkload.Applied a : scenario.workload.applied) {
      if (a.document() != null && a.collection().equals(RandomWorkload.ORDERS)) {
        orders.add(a.document());
      }
    }
    documents.put(RandomWorkload.ORDERS, orders);
    FieldPrivacyAudit audit = new FieldPrivacyAudit(FaultLane.FIELD_HASH_KEY,
        Map.of(RandomWorkload.ORDERS, RuleEditPlan.PATHS), documents);
    FieldRuleSettings rules = scenario.finalRules;
    audit.destination(c, scenario.mirror.destinationSchema(), RandomWorkload.DATABASE, rules);
    try (Connection catalog = SuiteCatalog.catalogData().getConnection()) {
      audit.catalog(catalog, scenario.mirror.name(), rules);
    }
    if (!audit.clean()) {
      fail("the rows do not keep the field rules " + rules + ":\n" + audit.report());
    }
    scenario.count("field privacy audits", 1);
  }

  /**
   * With field rules, no row of orders, nor of its history, holds the excluded field or a status
   * as the source wrote it: not in a document, a pre-image or an update's changed fields.
   */
  private void checkRulesLeftNothing(Connection c) throws SQLException {
    String table = scenario.tableOf(RandomWorkload.ORDERS);
    String orders = "select count(*) from " + table + " where doc::text ~ ?";
    String history = "select count(*) from " + TableNaming.qualified(scenario.mirror.destinationSchema(),
        TableNaming.historyTableName(TableNaming.tableName(RandomWorkload.NS)))
        + " where concat(doc::text, doc_before::text, \"updateDescription\"::text) ~ ?";
    for (String query : scenario.history ? List.of(orders, history) : List.of(orders)) {
      try (PreparedStatement st = c.prepareStatement(query)) {
        st.setString(1, "\"tag\"|\"status\": \"(new|s[0-9])\"");
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          if (rs.getLong(1) > 0) {
            fail(rs.getLong(1) + " rows (" + query + ") hold a value the field rules exclude or hash");
          }
        }
      }
    }
    scenario.count("field rule leak checks", 1);
  }

  /**
   * The destination table of {@code collection} holds exactly the {@code expected} rows: per key
   * the position, whether it is deleted, and the document.
   */
  private void checkTable(Connection c, String collection, Map<String, RandomWorkload.KeyState> expected)
      throws SQLException {
    String table = scenario.tableOf(collection);
    TranscodingJsonRenderer documents = TranscodingJsonRenderer.relaxed();
    String of = collection.equals(RandomWorkload.ORDERS) ? "" : " of " + collection;
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select count(*) from " + table)) {
      rs.next();
      if (rs.getInt(1) != expected.size()) {
        fail("the destination" + of + " has " + rs.getInt(1) + " rows, the source" + of + " has " + expected.size()
            + (scenario.snapshots ? " keys (copied or written after the copy's start)" : " touched keys"));
      }
    }
    // With rule edits, which rule a row's edited paths met depends on when it was written: they
    // are left out of the comparison here, and the privacy audit holds them to the final rules.
    boolean edited = scenario.ruleEdits != null && collection.equals(RandomWorkload.ORDERS);
    List<String> strip = edited ? RuleEditPlan.PATHS : List.of();
    try (PreparedStatement st = c.prepareStatement("select (doc" + " #- ?::text[]".repeat(strip.size())
        + ") = ?::jsonb, \"_position\", \"_deleted\", doc::text from " + table + " where \"_id\" = ?")) {
      for (int i = 0; i < strip.size(); i++) {
        st.setString(i + 1, "{" + String.join(",", FieldRules.segments(strip.get(i))) + "}");
      }
      FieldRedactor rules = edited ? FieldRedactor.of(new FieldRules(RuleEditPlan.PATHS, List.of()), null)
          : collection.equals(RandomWorkload.ORDERS) ? scenario.ordersRules : null;
      for (Map.Entry<String, RandomWorkload.KeyState> e : expected.entrySet()) {
        RandomWorkload.KeyState source = e.getValue();
        // With field rules, the source's document as they leave it.
        RandomWorkload.KeyState want = rules == null || source.document() == null ? source
            : new RandomWorkload.KeyState(rules.document(source.document()), source.deleted(), source.token());
        st.setString(strip.size() + 1, want.document() == null ? "null" : documents.render(want.document()));
        st.setString(strip.size() + 2, e.getKey());
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            if (!scenario.snapshots && want.deleted() && want.document() == null) {
              continue;
            }
            fail("row " + e.getKey() + of + " is missing");
          }
          if (!rs.getString(2).equals(want.token().data())) {
            fail("row " + e.getKey() + of + " has position " + rs.getString(2) + ", its last event is "
                + want.token().data());
          }
          if (rs.getBoolean(3) != want.deleted()) {
            fail("row " + e.getKey() + of + " deleted=" + rs.getBoolean(3) + ", the source says " + want.deleted());
          }
          if (!want.deleted() && !rs.getBoolean(1)) {
            fail("row " + e.getKey() + of + " is " + rs.getString(4) + ", the source has "
                + documents.render(want.document()));
          }
        }
      }
    }
  }

  /**
   * At a catalog commit: every event the checkpoint covers is in the destination. With
   * snapshots, per collection copied, the events after its snapshot's start (the copy holds
   * those before it).
   */
  void checkDeliveredPrefix(StreamPosition checkpoint) {
    if (!(checkpoint instanceof StreamPosition.AfterToken after)) {
      return;
    }
    if (!scenario.snapshots) {
      if (checkDeliveredPrefix(RandomWorkload.ORDERS, scenario.workload.stateAt(after.token()), after.token())) {
        scenario.count("prefix checks at commit", 1);
      }
      return;
    }
    for (Map.Entry<String, ResumeToken> start : scenario.snapshotStarts.entrySet()) {
      if (!checkDeliveredPrefix(start.getKey(), scenario.workload.stateAt(start.getKey(), after.token(), start.getValue()),
          after.token())) {
        return;
      }
    }
    scenario.count("prefix checks at commit", 1);
  }

  /** A connection the server ended (shut down, restarted) or lost: SQLSTATE class 57P or 08. */
  private static boolean lostConnection(SQLException e) {
    String state = e.getSQLState();
    return state != null && (state.startsWith("57P") || state.startsWith("08"));
  }

  private boolean checkDeliveredPrefix(String collection, Map<String, RandomWorkload.KeyState> expected,
      ResumeToken checkpoint) {
    Map<String, String> rows = new HashMap<>();
    // Not while the driver restarts the destination server: the oracle's read is no target of
    // the faults (its connections are spared by the killing of backends too, see FaultLane).
    synchronized (scenario.lane.destination) {
      for (int attempt = 1; ; attempt++) {
        try (Connection c = scenario.lane.destinationData.getConnection();
            Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("select \"_id\", \"_position\" from " + scenario.tableOf(collection))) {
          while (rs.next()) {
            rows.put(rs.getString(1), rs.getString(2));
          }
          break;
        } catch (SQLException e) {
          // Another lane's fault may restart the server the lanes share: the read is asked again.
          if (attempt < 3 && lostConnection(e)) {
            rows.clear();
            continue;
          }
          scenario.violations.add("cannot read the destination: " + e.getMessage());
          return false;
        }
      }
    }
    for (Map.Entry<String, RandomWorkload.KeyState> e : expected.entrySet()) {
      String at = rows.get(e.getKey());
      if (at == null || ResumeToken.of(at).compareTo(e.getValue().token()) < 0) {
        scenario.violations.add("checkpoint " + checkpoint + " covers event " + e.getValue().token() + " of key "
            + e.getKey() + (collection.equals(RandomWorkload.ORDERS) ? "" : " of " + collection)
            + " but the destination has " + at);
        return false;
      }
    }
    return true;
  }
}
