package io.mongocdc.cli;

import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;

import io.mongocdc.wiring.PortsFactory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStatus;
import io.temporal.client.WorkflowClient;
import io.mongocdc.testing.PatientServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The admin cookbook of docs/catalog.md, run as it stands against a {@code dev} run: every query
 * executes, and what it returns agrees with the workflow (state, delivered records) and with
 * itself (per-operation counts add up, table totals equal batch totals). A paused mirror reads
 * {@code paused} within 5 s of the signal, and a forced failure shows as attempt rows and as
 * {@code backing_off}.
 */
class CatalogCookbookTest {

  private static final Path COOKBOOK = Path.of("..", "docs", "catalog.md");
  private static final Pattern JDBC_URL = Pattern.compile("admin SQL\\): (jdbc:postgresql://\\S+)");
  private static final Duration WAIT = Duration.ofSeconds(90);
  /** Between two looks at the catalog: the dev run needs the machine's cores more than the test does. */
  private static final Duration POLL = Duration.ofMillis(20);

  @TempDir Path directory;

  @Test
  void everyCookbookQueryRunsAndTellsTheTruthAboutADevRun() throws Exception {
    Map<String, String> cookbook = cookbook();
    assertTrue(cookbook.size() >= 10, "the cookbook's queries: " + cookbook.keySet());
    int temporalPort = freePort();
    Path report = directory.resolve("report.json");
    CountDownLatch ctrlC = new CountDownLatch(1);
    StringWriter out = new StringWriter();
    AtomicInteger exit = new AtomicInteger(-1);
    Thread dev = new Thread(() -> exit.set(cli(ctrlC, out).execute("dev", "--headless", "--rate", "4000",
        "--batch-size", "2000", "--report", report.toString(), "--temporal-port", String.valueOf(temporalPort),
        "--metrics-port", "-1", "--console-port", "-1")), "dev");
    dev.start();
    WorkflowServiceStubs service = null;
    try (Connection sql = DriverManager.getConnection(await("the admin SQL address", () -> {
      Matcher m = JDBC_URL.matcher(out.toString());
      return m.find() ? m.group(1) : null;
    }))) {
      service = PatientServiceStubs.to(temporalPort);
      CdcFlowWorkflow mirror = WorkflowClient.newInstance(service).newWorkflowStub(CdcFlowWorkflow.class, "mirror-dev");
      await("three committed batches", () -> statusIf(mirror,
          s -> s.state() == MirrorPhase.RUNNING && s.committedBatchId() >= 3));
      // The copies end during a batch: status says so at once, the catalog when the next batch
      // starts (dev's batches last 10 s at most).
      long running = System.nanoTime();
      await("the catalog to read running", () -> "running".equals(state(sql)) ? true : null);
      long runningAfterMillis = (System.nanoTime() - running) / 1_000_000;
      assertTrue(runningAfterMillis < 15_000, "running in SQL " + runningAfterMillis + " ms after status");

      long signalled = System.nanoTime();
      mirror.pause(null);
      await("the catalog to read paused", () -> "paused".equals(state(sql)) ? true : null);
      long pausedAfterMillis = (System.nanoTime() - signalled) / 1_000_000;
      assertTrue(pausedAfterMillis < 5_000, "paused in SQL " + pausedAfterMillis + " ms after the signal");
      MirrorStatus paused = mirror.status();
      assertEquals(MirrorPhase.PAUSED, paused.state());

      List<Map<String, Object>> doing = run(sql, cookbook, "What is every mirror doing?");
      assertEquals(1, doing.size());
      assertEquals("paused", doing.get(0).get("state"));
      assertEquals("paused by the operator", doing.get(0).get("state_reason"));
      assertEquals(paused.committedBatchId(), ((Number) doing.get(0).get("committed_batch_id")).longValue());
      assertEquals(List.of(), run(sql, cookbook, "Is anything stuck?"), "a paused mirror is not stuck");
      assertNotNull(run(sql, cookbook, "Lag per mirror:").get(0).get("replication_lag"));

      long delivered = paused.totals().get(RECORDS_DELIVERED);
      assertEquals(delivered, sum(run(sql, cookbook, "Throughput per hour"), "records"),
          "the batches hold every record the workflow counted");
      List<Map<String, Object>> tables = run(sql, cookbook, "Tables and row counts:");
      assertEquals(3, tables.size(), "the generator's three collections: " + tables);
      assertEquals(delivered, sum(tables, "records"), "the table totals equal the batch totals");
      for (Map<String, Object> table : tables) {
        assertEquals(((Number) table.get("records")).longValue(), sum(List.of(table), "inserts", "updates",
            "replaces", "deletes"), "per operation, the table's counts add up: " + table);
        assertNotNull(table.get("rows_estimate"), "dev shares one database: " + table);
      }
      assertEquals(List.of(), run(sql, cookbook, "Batches whose per-operation counts do not add up"));
      assertEquals(0L, scalar(sql, "select count(*) from mongo_cdc.batches where records > 0 and"
          + " (read_ms is null or decode_ms is null or sink_write_ms is null or sink_commit_ms is null"
          + " or lane_commit_ms is null or attempts is null or first_position is null or inserts is null)"),
          "every batch that delivered says where its time went and what it held");
      assertEquals(0L, scalar(sql, "select count(*) from mongo_cdc.batches where records > 0 and"
          + " (read_ms + decode_ms <= 0 or sink_write_ms <= 0 or lane_commit_ms <= 0)"), "positive stage timings");
      assertFalse(run(sql, cookbook, "Where the time went").isEmpty());
      List<Map<String, Object>> snapshots = run(sql, cookbook, "Snapshot progress");
      assertEquals(3, snapshots.size());
      snapshots.forEach(s -> assertEquals("done", s.get("state"), s.toString()));
      assertTrue(run(sql, cookbook, "Which catalog version").stream().anyMatch(v -> "4".equals(v.get("version"))));
      List<Map<String, Object>> pruned = run(sql, cookbook, "Prune batch history");
      assertEquals(0L, sum(pruned, "batches", "attempts"), "nothing is 30 days old");

      // A destination that refuses every row for now (a trigger raising a state error, which a
      // retry may get past): each attempt leaves a row, then the mirror backs off. A refusal for
      // good (a check constraint) fails the mirror instead, and dev then stops: see
      // FailureClassifierDestinationTest.
      String table = (String) tables.get(0).get("destination_table");
      exec(sql, "create function public.cookbook_refuses() returns trigger language plpgsql as"
          + " $$ begin raise exception 'cookbook_refuses' using errcode = '55000'; end $$");
      exec(sql, "create trigger cookbook_refuses before insert or update on public.\"" + table + "\""
          + " for each row execute function public.cookbook_refuses()");
      mirror.resume();
      await("a failed attempt in the catalog", () -> run(sql, cookbook, "Errors in the last day").isEmpty() ? null : true);
      Map<String, Object> attempt = run(sql, cookbook, "Errors in the last day").get(0);
      assertEquals("Transient", attempt.get("failure_type"));
      assertTrue(((String) attempt.get("message")).contains("cookbook_refuses"), attempt.toString());
      await("the catalog to read backing_off", () -> "backing_off".equals(state(sql)) ? true : null);
      List<Map<String, Object>> stuck = run(sql, cookbook, "Is anything stuck?");
      assertEquals(1, stuck.size());
      assertEquals("Transient", stuck.get(0).get("failure_type"));
      assertEquals(1, ((Number) stuck.get(0).get("failed_attempts")).intValue());
      assertTrue(((String) stuck.get(0).get("last_batch_error")).contains("cookbook_refuses"), stuck.toString());
      assertEquals(MirrorPhase.BACKING_OFF, mirror.status().state());

      exec(sql, "drop trigger cookbook_refuses on public.\"" + table + "\"");
      mirror.resume();
      await("a batch after the failure", () -> statusIf(mirror,
          s -> s.state() == MirrorPhase.RUNNING && s.committedBatchId() > paused.committedBatchId()));
      await("the catalog to read running", () -> "running".equals(state(sql)) ? true : null);
      assertEquals(List.of(), run(sql, cookbook, "Is anything stuck?"));
    } finally {
      ctrlC.countDown();
      dev.join(Duration.ofSeconds(100).toMillis());
      if (service != null) {
        service.shutdownNow();
      }
    }
    assertEquals(0, exit.get(), out.toString());
    JsonNode figures = new ObjectMapper().readTree(Files.readString(report));
    assertTrue(figures.get("destinationMatchesSource").asBoolean(), figures.toString());
  }

  /** The cookbook's queries by their first comment line, in the order the doc gives them. */
  private static Map<String, String> cookbook() throws IOException {
    String doc = Files.readString(COOKBOOK);
    int start = doc.indexOf("## Admin cookbook");
    assertTrue(start >= 0, "docs/catalog.md has an admin cookbook");
    int end = doc.indexOf("\n## ", start + 1);
    String section = doc.substring(start, end < 0 ? doc.length() : end);
    Map<String, String> queries = new LinkedHashMap<>();
    Matcher block = Pattern.compile("```sql\n(.*?)```", Pattern.DOTALL).matcher(section);
    while (block.find()) {
      String query = block.group(1).trim();
      assertTrue(query.startsWith("-- "), "each query starts with its title as a comment: " + query);
      queries.put(query.substring(3, query.indexOf('\n')), query);
    }
    return queries;
  }

  private static List<Map<String, Object>> run(Connection sql, Map<String, String> cookbook, String titleStart)
      throws SQLException {
    String query = cookbook.entrySet().stream().filter(e -> e.getKey().startsWith(titleStart))
        .map(Map.Entry::getValue).findFirst()
        .orElseThrow(() -> new AssertionError("no cookbook query titled '" + titleStart + "...'"));
    List<Map<String, Object>> rows = new ArrayList<>();
    try (Statement st = sql.createStatement(); ResultSet rs = st.executeQuery(query)) {
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  private static long sum(List<Map<String, Object>> rows, String... columns) {
    long sum = 0;
    for (Map<String, Object> row : rows) {
      for (String column : columns) {
        sum += ((Number) row.get(column)).longValue();
      }
    }
    return sum;
  }

  private static String state(Connection sql) throws SQLException {
    try (Statement st = sql.createStatement();
        ResultSet rs = st.executeQuery("select state from mongo_cdc.mirror_status where mirror = 'dev'")) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  private static long scalar(Connection sql, String query) throws SQLException {
    try (Statement st = sql.createStatement(); ResultSet rs = st.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void exec(Connection sql, String statement) throws SQLException {
    try (Statement st = sql.createStatement()) {
      st.execute(statement);
    }
  }

  private static Boolean statusIf(CdcFlowWorkflow mirror, Predicate<MirrorStatus> condition) {
    try {
      return condition.test(mirror.status()) ? true : null;
    } catch (RuntimeException notYet) {
      return null; // the workflow is not started yet
    }
  }

  @FunctionalInterface
  private interface Probe<T> {
    T get() throws Exception;
  }

  /** Polls until the probe returns a value: a condition with a deadline, not a timed guess. */
  private static <T> T await(String what, Probe<T> probe) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      T value = probe.get();
      if (value != null) {
        return value;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("waited " + WAIT + " for " + what);
      }
      LockSupport.parkNanos(POLL.toNanos());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static CommandLine cli(CountDownLatch ctrlC, StringWriter out) {
    CommandLine cli = MongoCdc.commandLine(new CliContext(ClientFactory.grpc(), PortsFactory.installed(), Map.of(),
        stop -> {
          ctrlC.await();
          stop.run();
        }));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(out, true));
    return cli;
  }
}
