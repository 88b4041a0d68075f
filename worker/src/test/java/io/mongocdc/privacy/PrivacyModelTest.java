package io.mongocdc.privacy;

import static org.junit.jupiter.api.Assertions.fail;

import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.source.scripted.ManualClock;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.testing.FieldPrivacyAudit;
import io.mongocdc.testing.ScriptedWorld;
import io.mongocdc.testing.TestPorts;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.VerifyMirrorWorkflow;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.SnapshotProgress;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.mongocdc.workflows.model.StopRequest;
import io.mongocdc.workflows.model.VerifyRequest;
import io.mongocdc.workflows.model.VerifyResult;
import io.mongocdc.workflows.model.MirrorIds;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 47: a model-based test of field privacy. Each seed plays a random sequence of steps on a
 * running mirror with history and typed columns over the real workflow, activities, PostgreSQL
 * destination and catalog: rules added and removed (hash and exclude) by edits, batches, batches
 * cancelled by a pause after their rows were committed past the checkpoint, batches failed by the
 * destination's connections being killed and retried, one-collection and full resyncs, history
 * turned off and on, the mirror dropped and created again with one more rule, plain pauses and
 * resumes. Batches end only when the test moves the pipeline's clock, so a batch is
 * held in flight exactly where a step needs it.
 *
 * <p>At the end, with the hash key known, no state row, tombstone, history row, typed column,
 * quarantined event or catalog row may hold a value the final rules protect in clear, nor any
 * value hashed twice ({@link FieldPrivacyAudit}); and the live rows equal the source under the
 * final rules, as {@code mirror verify} compares them, apart from the paths whose rules were
 * removed (rows keep what such a rule wrote, as docs/privacy.md says).
 *
 * <p>{@code -Dprivacy.model.seeds=N,M} replays seeds.
 */
class PrivacyModelTest {

  private static final String SOURCE_PEER = "privacy-mongo";
  private static final String DESTINATION_PEER = "privacy-pg";
  private static final String KEY_TEXT = "the privacy model test's field hash key";
  private static final HashKey KEY = HashKey.of(KEY_TEXT, "the privacy model test");
  private static final String ORDERS = "orders";
  /** The paths rules go on and off: a typed column reads {@code email}, so it can be hashed, not excluded. */
  private static final List<String> PATHS = List.of("customer", "customer.name", "customer.phone", "email");
  private static final int CHANGES = 120;
  private static final Duration IDLE = Duration.ofSeconds(2);
  private static final Duration SETTLE_LIMIT = Duration.ofSeconds(60);
  private static final AtomicInteger MIRRORS = new AtomicInteger();

  @RegisterExtension
  static final WorkflowTestExtension fixture =
      WorkflowTestExtension.withDatabases("privacy_model", SOURCE_PEER, DESTINATION_PEER);

  enum Step { ADD_RULE, REMOVE_RULE, BATCH, CANCELLED_BATCH, FAILED_BATCH, RESYNC_COLLECTION, RESYNC, PAUSE,
    HISTORY_OFF_AND_ON, DROP_AND_CREATE }

  static Stream<Long> seeds() {
    String only = System.getProperty("privacy.model.seeds");
    return only != null && !only.isBlank() ? Stream.of(only.split(",")).map(s -> Long.parseLong(s.trim()))
        : LongStream.rangeClosed(1, 3).boxed();
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void noRowHoldsAProtectedValueInClearOrHashedTwiceWhateverPathWroteIt(long seed) throws Exception {
    new Sequence(seed).play();
  }

  /** One seed's world, mirror and steps. */
  private static final class Sequence {
    private final long seed;
    private final Random random;
    private final ScriptedWorld world;
    private final ManualClock clock = new ManualClock();
    private final MirrorConfig mirror;
    private final List<String> steps = new ArrayList<>();
    private final List<String> removed = new ArrayList<>();
    private CdcFlowWorkflow workflow;
    private int revealed;

    Sequence(long seed) {
      this.seed = seed;
      this.random = new Random(seed * 1_000_003 + 11);
      this.world = new ScriptedWorld(seed, ScriptedWorld.ChangeMix.WITH_REPLACES).withPersonalData();
      world.prefill(ORDERS, 15 + random.nextInt(15));
      world.change(ORDERS, CHANGES);
      String name = "privacy" + MIRRORS.incrementAndGet();
      MirrorSettings settings = MirrorSettings.defaults().toBuilder().batchSize(1_000)
          .idleTimeoutSeconds((int) IDLE.toSeconds()).maxBatchDurationSeconds(600).decodeWorkers(2).chunkSize(4)
          .snapshot(new SnapshotSettings(true, 10, 2, null)).build()
          .apply(EditRequest.fromJson(Map.of(
              "history", Map.of(ORDERS, true),
              "columns", Map.of(ORDERS, List.of(Map.of("name", "em", "type", "text", "path", "email"))),
              "fieldRules", Map.of(ORDERS, Map.of("hash", List.of("email"))))));
      this.mirror = new MirrorConfig(name, SOURCE_PEER, DESTINATION_PEER, ScriptedWorld.DATABASE, List.of(ORDERS), name,
          settings);
    }

    void play() throws Exception {
      PeerRegistry peers = peers();
      fixture.start().startWorker(peers, TestPorts.postgres(fixture.catalog(), peers).source(world.source()).verifyRuns().build(),
          PullTuning.defaults().withProgressInterval(Duration.ofMillis(20)).withCommitInterval(4, 0)
              .withShutdownTimeout(Duration.ofSeconds(10)), clock);
      workflow = fixture.temporal().start(mirror);
      settle();
      int count = 8 + random.nextInt(6);
      try {
        for (int i = 0; i < count; i++) {
          step(pick());
        }
        reveal(CHANGES - revealed);
        settle();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + " failed during its steps " + steps + ": " + e.getMessage(), e);
      }
      MirrorStatus last = workflow.status();
      VerifyResult verified = verify(last.config());
      System.out.println("privacy model seed " + seed + ": " + steps + ", final rules " + last.config().settings()
          .fieldRules().of(ORDERS) + ", verify: " + verified.collections());
      terminate();
      check(last.config().settings().fieldRules(), verified);
    }

    /**
     * Runs {@code mirror verify} (no repair) over the settled mirror, moving the pipeline's clock
     * so the mirror passes verify's reads.
     */
    private VerifyResult verify(MirrorConfig config) {
      VerifyMirrorWorkflow verify = fixture.temporal().client.newWorkflowStub(VerifyMirrorWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(MirrorIds.verifyWorkflowId(config.name()))
              .setTaskQueue(WorkerEnvironment.TASK_QUEUE).build());
      WorkflowStub stub = WorkflowStub.fromTyped(verify);
      WorkflowClient.start(verify::run, new VerifyRequest(config, false, 1_000_000, 2));
      long until = System.nanoTime() + SETTLE_LIMIT.toNanos();
      while (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        if (System.nanoTime() > until) {
          fail("seed " + seed + ": verify did not end");
        }
        clock.advance(IDLE.plusSeconds(1));
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      }
      return stub.getResult(VerifyResult.class);
    }

    /** Terminates the mirror and waits until its run closed; the status it closed with. */
    private WorkflowExecutionStatus terminate() {
      workflow.terminate(new StopRequest(false));
      // The batch in flight ends when the pipeline's clock passes its idle timeout.
      return awaitClosed();
    }

    private WorkflowExecutionStatus awaitClosed() {
      WorkflowStub stub = fixture.temporal().client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror.name()));
      long until = System.nanoTime() + SETTLE_LIMIT.toNanos();
      WorkflowExecutionStatus status;
      while ((status = stub.describe().getStatus()) == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        if (System.nanoTime() > until) {
          fail("seed " + seed + ": the mirror did not end after its steps " + steps);
        }
        clock.advance(IDLE.plusSeconds(1));
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      }
      return status;
    }

    private Step pick() {
      while (true) {
        // Rule edits come as often as all the other steps together.
        Step step = random.nextBoolean() ? (random.nextInt(3) == 0 ? Step.REMOVE_RULE : Step.ADD_RULE)
            : Step.values()[2 + random.nextInt(Step.values().length - 2)];
        return step;
      }
    }

    private void step(Step step) throws Exception {
      switch (step) {
        case ADD_RULE -> {
          String path = PATHS.get(random.nextInt(PATHS.size()));
          String kind = random.nextBoolean() ? "hash" : "exclude";
          edit(step + " " + kind + " " + path, Map.of("fieldRules", Map.of(ORDERS, Map.of(kind, List.of(path)))));
        }
        case REMOVE_RULE -> {
          List<String> ruled = workflow.status().config().settings().fieldRules().of(ORDERS).paths();
          String path = ruled.isEmpty() ? PATHS.get(random.nextInt(PATHS.size())) : ruled.get(random.nextInt(ruled.size()));
          if (edit(step + " " + path, Map.of("removeFieldRules", Map.of(ORDERS, List.of(path))))) {
            removed.add(path);
          }
        }
        case BATCH -> {
          steps.add(step.name());
          reveal(3 + random.nextInt(12));
          settle();
        }
        case CANCELLED_BATCH -> {
          steps.add(step.name());
          settle();
          if (reveal(2 + random.nextInt(8)) > 0) {
            // The clock stands: the batch stays in flight, its rows committed past the checkpoint.
            awaitRowAt(revealed - 1);
          }
          workflow.pause(new StopRequest(true));
          awaitStatus("paused", s -> s.state() == MirrorPhase.PAUSED);
        }
        case FAILED_BATCH -> {
          steps.add(step.name());
          settle();
          if (reveal(2 + random.nextInt(8)) > 0) {
            awaitRowAt(revealed - 1);
          }
          // The batch's connections are gone: its next write fails, and the attempt is retried.
          killDestinationConnections();
          reveal(1 + random.nextInt(3));
        }
        case RESYNC_COLLECTION -> {
          steps.add(step.name());
          settle();
          if (revealed > 0) {
            world.startAfter(revealed - 1);
          }
          workflow.edit(Map.of("resyncCollections", List.of(ORDERS)));
        }
        case RESYNC -> {
          steps.add(step.name());
          settle();
          if (revealed > 0) {
            world.startAfter(revealed - 1);
          }
          workflow.resync();
        }
        case PAUSE -> {
          steps.add(step.name());
          workflow.pause(null);
          // A pause lets the batch in flight end: its idle timeout passes as the clock moves.
          awaitStatus("paused", s -> {
            clock.advance(IDLE.plusSeconds(1));
            return s.state() == MirrorPhase.PAUSED;
          });
        }
        case HISTORY_OFF_AND_ON -> {
          steps.add(step.name());
          workflow.edit(Map.of("history", Map.of(ORDERS, false)));
          reveal(1 + random.nextInt(5));
          settle();
          workflow.edit(Map.of("history", Map.of(ORDERS, true)));
        }
        case DROP_AND_CREATE -> dropAndCreate();
        default -> throw new IllegalStateException(step.name());
      }
    }

    /**
     * Drops the mirror (its tables and catalog rows stay) and creates it again with one more rule,
     * resuming from the catalog's checkpoint: the rows written before are rewritten under it. A
     * rule the settings or the set-up refuse (a path hashed before and no longer) is a step too:
     * the mirror is created again with the rules it had.
     */
    private void dropAndCreate() {
      settle();
      MirrorConfig before = workflow.status().config();
      terminate();
      String path = PATHS.get(random.nextInt(PATHS.size()));
      String kind = random.nextBoolean() ? "hash" : "exclude";
      String what = Step.DROP_AND_CREATE + " adding " + kind + " " + path;
      MirrorSettings withRule;
      try {
        withRule = before.settings().apply(EditRequest.fromJson(Map.of("fieldRules", Map.of(ORDERS, Map.of(kind,
            List.of(path))))));
      } catch (IllegalArgumentException e) {
        steps.add(what + " (refused: " + e.getMessage() + ")");
        withRule = before.settings();
      }
      workflow = fixture.temporal().start(before.withSettings(withRule));
      WorkflowStub stub = fixture.temporal().client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror.name()));
      // Set up again, or refused by the set-up (the run fails): whichever comes first.
      long until = System.nanoTime() + SETTLE_LIMIT.toNanos();
      while (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
          && workflow.status().state() == MirrorPhase.SETTING_UP) {
        if (System.nanoTime() > until) {
          fail("seed " + seed + ": the mirror created again was neither set up nor refused");
        }
        clock.advance(IDLE.plusSeconds(1));
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      }
      if (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED) {
        steps.add(what + " (refused by the set-up)");
        workflow = fixture.temporal().start(before);
      } else if (!withRule.equals(before.settings())) {
        steps.add(what);
      }
      settle();
    }

    /** Sends an edit by update; true if accepted. A refusal (a path hashed before, a rewrite running) is a step too. */
    private boolean edit(String what, Map<String, Object> edit) {
      try {
        workflow.edit(edit);
        steps.add(what);
        return true;
      } catch (WorkflowUpdateException e) {
        String reason = e.getCause() instanceof ApplicationFailure a ? a.getOriginalMessage() : String.valueOf(e.getCause());
        steps.add(what + " (refused: " + reason.replaceAll("\\s+", " ") + ")");
        return false;
      }
    }

    /** Shows up to {@code n} more changes on the stream and applies them to the source; the number shown. */
    private int reveal(int n) {
      int to = Math.min(CHANGES, revealed + n);
      world.reveal(to);
      world.applyToSource(revealed, to);
      int shown = to - revealed;
      revealed = to;
      return shown;
    }

    /**
     * Moves the mirror on until it is running, every change shown is committed, no edit is
     * pending, no rewrite or copy runs, and two more batches ended: the pipeline's clock moves an
     * idle timeout per look, a paused mirror is resumed.
     */
    private void settle() {
      long startBatch = workflow.status().committedBatchId();
      awaitStatus("settled", s -> {
        if (s.state() == MirrorPhase.PAUSED) {
          workflow.resume();
        }
        clock.advance(IDLE.plusSeconds(1));
        return s.state() == MirrorPhase.RUNNING && s.pendingEdits().isEmpty() && s.fieldRuleRewrite() == null
            && s.snapshots().stream().allMatch(SnapshotProgress::done) && s.committedBatchId() >= startBatch + 2
            && (revealed == 0 || world.delivered(s, revealed - 1));
      });
    }

    private MirrorStatus awaitStatus(String what, Predicate<MirrorStatus> condition) {
      long until = System.nanoTime() + SETTLE_LIMIT.toNanos();
      MirrorStatus status = workflow.status();
      while (!condition.test(status)) {
        if (System.nanoTime() > until) {
          fail("not " + what + " after " + SETTLE_LIMIT.toSeconds() + " s: " + status);
        }
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        status = workflow.status();
      }
      return status;
    }

    /** Waits until the destination holds the row of change {@code index} (the sink committed it). */
    private void awaitRowAt(int index) throws SQLException {
      String position = world.checkpointAtEvent(index);
      long until = System.nanoTime() + SETTLE_LIMIT.toNanos();
      String table = ScriptedWorld.table(mirror, ORDERS);
      while (true) {
        try (Connection c = fixture.destination().getConnection();
            PreparedStatement st = c.prepareStatement("select count(*) from " + table + " where \"_position\" = ?")) {
          st.setString(1, position);
          try (ResultSet rs = st.executeQuery()) {
            rs.next();
            if (rs.getLong(1) > 0) {
              return;
            }
          }
        }
        if (System.nanoTime() > until) {
          fail("the row of change " + index + " was never committed");
        }
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      }
    }

    private void killDestinationConnections() throws SQLException {
      try (Connection c = fixture.destination().getConnection();
          PreparedStatement st = c.prepareStatement("select count(*) filter (where pg_terminate_backend(pid))"
              + " from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()"
              + " and backend_type = 'client backend'")) {
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          steps.add("(" + rs.getInt(1) + " destination connections killed)");
        }
      }
    }

    /**
     * The privacy audit, then the live rows against the source under the final rules, and verify
     * against the same comparison: it finds the rows that differ once the paths of removed rules
     * count too (rows keep what such a rule wrote), no more and no fewer.
     */
    private void check(FieldRuleSettings rules, VerifyResult verified) throws SQLException {
      FieldPrivacyAudit audit = new FieldPrivacyAudit(KEY, Map.of(ORDERS, PATHS),
          Map.of(ORDERS, world.everyDocument(ORDERS)));
      try (Connection c = fixture.destination().getConnection()) {
        audit.destination(c, mirror.destinationSchema(), ScriptedWorld.DATABASE, rules);
      }
      try (Connection c = fixture.catalog().getConnection()) {
        audit.catalog(c, mirror.name(), rules);
      }
      List<String> differ = liveRowsDiffer(rules, removedPaths(rules));
      int differWithRemoved = liveRowsDiffer(rules, List.of()).size();
      if (verified.mismatches() != differWithRemoved) {
        fail("seed " + seed + " (rerun alone with -Dprivacy.model.seeds=" + seed + "), steps " + steps
            + ": verify found " + verified.collections() + ", the model " + differWithRemoved + " rows that differ");
      }
      if (!audit.clean() || !differ.isEmpty()) {
        fail("seed " + seed + " (rerun alone with -Dprivacy.model.seeds=" + seed + "), steps " + steps
            + ", final rules " + rules.of(ORDERS) + ":\n" + audit.report()
            + (differ.isEmpty() ? "" : differ.size() + " live rows differ from the source under the final rules, e.g. "
                + differ.subList(0, Math.min(3, differ.size()))));
      }
    }

    /** The paths a removed rule covered and no final rule does: rows keep what the rule wrote. */
    private List<String> removedPaths(FieldRuleSettings rules) {
      List<String> paths = new ArrayList<>();
      for (String path : removed) {
        if (!rules.of(ORDERS).paths().contains(path) && !paths.contains(path)) {
          paths.add(path);
        }
      }
      return paths;
    }

    /**
     * The live rows that differ from the source's documents under the final rules, as verify
     * compares them, with the paths {@code strip} left out of both.
     */
    private List<String> liveRowsDiffer(FieldRuleSettings rules, List<String> strip) throws SQLException {
      FieldRules fin = rules.of(ORDERS);
      // A path under an excluded or hashed one is governed by it; only the others are stripped.
      FieldRedactor redactor = FieldRedactor.of(fin, KEY);
      FieldRedactor stripper = FieldRedactor.of(new FieldRules(strip, List.of()), null);
      TranscodingJsonRenderer json = TranscodingJsonRenderer.relaxed();
      IdKeyRenderer keys = new IdKeyRenderer();
      Map<String, String> expected = new LinkedHashMap<>();
      for (RawBsonDocument document : world.snapshot().documents(ORDERS)) {
        RawBsonDocument doc = stripper.document(redactor.document(document));
        expected.put(keys.renderIdOf(document), json.render(doc));
      }
      List<String> differ = new ArrayList<>();
      Map<String, String> actual = new HashMap<>();
      try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select \"_id\", doc::text from " + ScriptedWorld.table(mirror, ORDERS)
              + " where not \"_deleted\"")) {
        while (rs.next()) {
          actual.put(rs.getString(1), rs.getString(2));
        }
      }
      for (Map.Entry<String, String> e : expected.entrySet()) {
        String row = actual.remove(e.getKey());
        if (row == null) {
          differ.add(e.getKey() + " missing");
          continue;
        }
        RawBsonDocument stripped = stripper.document(new RawBsonDocument(BsonDocument.parse(row), new BsonDocumentCodec()));
        if (!BsonDocument.parse(json.render(stripped)).equals(BsonDocument.parse(e.getValue()))) {
          differ.add(e.getKey() + " is " + row + ", the source under the rules " + e.getValue());
        }
      }
      actual.keySet().forEach(id -> differ.add(id + " is live, the source does not have it"));
      return differ;
    }
  }

  /** The test's peers, with the field hash key in the worker's environment. */
  private static PeerRegistry peers() throws SQLException {
    String database;
    try (Connection c = fixture.destination().getConnection()) {
      database = c.getCatalog();
    }
    return new ConfiguredPeerRegistry(Map.of(SOURCE_PEER, Fixtures.SOURCE_URI, DESTINATION_PEER,
        EmbeddedPostgresSupport.postgres().getJdbcUrl("postgres", database)),
        Map.of(HashKey.ENVIRONMENT_VARIABLE, KEY_TEXT));
  }
}
