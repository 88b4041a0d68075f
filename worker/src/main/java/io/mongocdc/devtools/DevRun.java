package io.mongocdc.devtools;

import io.mongocdc.console.ConsoleSettings;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.privacy.MirrorRedaction;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.catalog.MirrorProgress;
import io.mongocdc.decode.Namespace;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.verify.VerifyFindings;
import io.mongocdc.devtools.generator.GeneratedChangeStream;
import io.mongocdc.devtools.generator.GeneratorMirrorSourceFactory;
import io.mongocdc.devtools.generator.LoadProfile;
import io.mongocdc.source.mongo.MongoMirrorSourceFactory;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.VerifyMirrorWorkflow;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.StopRequest;
import io.mongocdc.workflows.model.VerifyProgress;
import io.mongocdc.workflows.model.VerifyRequest;
import io.mongocdc.workflows.model.VerifyResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;
import java.util.function.BooleanSupplier;
import me.tongfei.progressbar.ProgressBar;
import org.jooq.exception.DataAccessException;

/**
 * One {@code mongo-cdc dev} session: starts the stack, creates the mirror, shows progress until
 * the requested events are delivered or the user stops it, then prints a summary and writes the
 * report.
 */
public final class DevRun {

  public static final String MIRROR = "dev";
  private static final String SCHEMA = "public";
  /** On Ctrl-C: how long a running mirror gets to deliver what was generated (the summary is due within 15 s). */
  private static final Duration DRAIN_AT_MOST = Duration.ofSeconds(8);
  /**
   * After a stop, verify may run until this long after the stop was seen (the drain's time
   * included), then it is interrupted: the summary follows within the 15 s a stop promises.
   */
  private static final Duration VERIFY_AFTER_STOP_AT_MOST = Duration.ofSeconds(11);
  /** Then how long the workflow gets to end, its batch in flight cancelled. */
  private static final Duration CLOSE_AT_MOST = Duration.ofSeconds(4);
  /**
   * The first seconds of the batch phase are warm-up (JIT, pools): the report's freshness starts
   * after them, or after the first third of a shorter run.
   */
  static final Duration STEADY_AFTER = Duration.ofSeconds(15);

  /** What the user asked for. */
  public record Options(
      int temporalPort,
      int metricsPort,
      String mongoUri,
      String mongoDatabase,
      List<String> mongoCollections,
      long events,
      int eventsPerSecond,
      long seed,
      int initialDocuments,
      int keySpace,
      Path report,
      boolean headless,
      MirrorSettings settings,
      PostgresSinkOptions destination,
      int poisonEvents,
      boolean verify,
      int tamper,
      boolean repair,
      HashKey fieldHashKey,
      ConsoleSettings console) {}

  private final Options options;
  private final PrintWriter out;
  private final ProcessCpuSamples cpu = new ProcessCpuSamples();
  /** The progress area of an interactive run; null for plain lines. */
  private DevTerminal terminal;
  /** The progress area's lines as streaming left them, under which verify adds its own. */
  private List<String> streamingLines = List.of();

  public DevRun(Options options, PrintWriter out) {
    this.options = options;
    this.out = out;
  }

  /**
   * Runs until the requested events are delivered (when {@code events > 0}) or {@code stop}
   * counts down.
   */
  public DevReport run(CountDownLatch stop) throws Exception {
    terminal = options.headless() ? null : DevTerminal.open(logFile());
    try {
      return runOnTerminal(stop);
    } finally {
      if (terminal != null) {
        terminal.close();
        out.printf("log: %s%n", terminal.logFile());
        out.flush();
      }
    }
  }

  /** Where an interactive run's log lines go: a file per process in the temporary directory. */
  private static Path logFile() {
    return Path.of(System.getProperty("java.io.tmpdir"), "mongo-cdc-dev-" + ProcessHandle.current().pid() + ".log");
  }

  private DevReport runOnTerminal(CountDownLatch stop) throws Exception {
    boolean generated = options.mongoUri() == null;
    GeneratedChangeStream generator = generated
        ? new GeneratedChangeStream(LoadProfile.demo(options.seed(), options.eventsPerSecond(), options.events(),
                options.keySpace())
            .withPoisonEvents(options.poisonEvents()), Clock.systemUTC(), Duration.ofMillis(200))
        : null;
    if (generated) {
      generator.prefill(options.initialDocuments());
    }
    List<String> collections = generated
        ? List.of("orders", "users", "products")
        : options.mongoCollections();
    String database = generated ? "demo" : options.mongoDatabase();
    try (DevStack stack = DevStack.start(options.temporalPort(), options.metricsPort(),
        generated ? Map.of() : Map.of("mongodb", options.mongoUri()),
        peers -> generated ? GeneratorMirrorSourceFactory.running(generator, options.seed()) : new MongoMirrorSourceFactory(peers),
        PullTuning.defaults(), options.destination(), options.fieldHashKey(), options.console())) {
      MirrorConfig mirror = new MirrorConfig(MIRROR, generated ? DevStack.GENERATOR_PEER : "mongodb", DevStack.DESTINATION_PEER,
          database, collections, SCHEMA, options.settings()).requireValid();
      CdcFlowWorkflow workflow = stack.client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId("mirror-" + MIRROR).setTaskQueue(DevStack.TASK_QUEUE).build());
      WorkflowClient.start(workflow::run, CdcFlowInput.newMirror(mirror));
      printIntroduction(stack, generated);

      BooleanSupplier done = generated && options.events() > 0
          ? () -> generator.exhausted() && delivered(stack, generator.lastEventToken()) && copiesOver(workflow)
          : () -> false;
      BooleanSupplier failed = () -> {
        MirrorStatus status = workflow.status();
        if (status.state() == MirrorPhase.FAILED) {
          out.printf("the mirror FAILED: %s%n", status.lastError());
          return true;
        }
        return false;
      };
      boolean mirrorFailed = showProgress(stack, stop, done, failed);
      // The steady part of the run ends here: what follows is the drain after a stop.
      Instant steadyEnd = Instant.now();
      Long stoppedAt = stop.getCount() == 0 ? System.nanoTime() : null;
      if (generated && !mirrorFailed) {
        // Let a running mirror deliver what was generated (all of it already when --events ran
        // out), so the comparison holds. A paused or failing one would never get there; the
        // summary says what it has.
        boolean interrupted = !done.getAsBoolean();
        generator.stopGenerating();
        if (interrupted) {
          out.println("stopping: delivering the events generated so far...");
          out.flush();
        }
        long deadline = System.nanoTime() + DRAIN_AT_MOST.toNanos();
        while (!delivered(stack, generator.lastEventToken()) && System.nanoTime() < deadline && delivering(workflow)) {
          Thread.sleep(200);
        }
      }

      DevReport.Verify verified = null;
      if (options.verify() && !mirrorFailed) {
        verified = verify(stack, mirror, stop, stoppedAt);
      }
      // What was to be delivered is; a batch still in flight has nothing more and is cancelled.
      workflow.terminate(new StopRequest(true));
      awaitClosed(stack);
      DevReport report = report(stack, generated, generator, collections, database, verified, steadyEnd);
      if (terminal != null) {
        terminal.clearArea();
      }
      printSummary(report, progress(stack));
      if (options.report() != null) {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(options.report().toFile(), report);
        out.printf("report written to %s%n", options.report());
      }
      out.flush();
      return report;
    }
  }

  private void printIntroduction(DevStack stack, boolean generated) {
    String target = "localhost:" + stack.temporalPort;
    out.printf("mongo-cdc dev: mirror '%s' is running.%n", MIRROR);
    out.printf("  source:      %s%n", generated
        ? "the built-in LOAD GENERATOR (synthetic events, seed " + options.seed() + "; no MongoDB involved)"
        : "MongoDB at " + Redaction.redact(options.mongoUri()));
    if (generated && options.settings().snapshot().enabled()) {
      out.printf("  snapshot:    %,d documents per collection exist before the first event; the mirror copies them"
          + " first%n", options.initialDocuments());
    }
    out.printf("  Temporal:    %s (namespace default, task queue %s)%n", target, DevStack.TASK_QUEUE);
    out.printf("  catalog and destination (admin SQL): %s%n", stack.jdbcUrl);
    if (terminal != null) {
      out.printf("  log:         %s (warnings and errors also print here)%n", terminal.logFile());
    }
    if (stack.metricsEndpoint != null) {
      out.printf("  metrics:     http://127.0.0.1:%d/metrics%n", stack.metricsEndpoint.port());
    }
    if (stack.console != null) {
      out.printf("  console:     %s%s%n", stack.console.url(), options.console().readOnly() ? " (read-only)" : "");
    }
    out.printf("  try:%n");
    out.printf("    temporal workflow query  --address %s --workflow-id mirror-%s --type status%n", target, MIRROR);
    out.printf("    temporal workflow signal --address %s --workflow-id mirror-%s --name pause%n", target, MIRROR);
    out.printf("    temporal workflow signal --address %s --workflow-id mirror-%s --name resume%n", target, MIRROR);
    out.printf("    temporal workflow update execute --address %s --workflow-id mirror-%s --name edit"
        + " --input '{\"batchSize\": 5000}'%n", target, MIRROR);
    out.printf("    psql '%s' -c 'select * from mongo_cdc.mirror_status'%n",
        "postgresql://postgres@localhost:" + stack.postgres.getPort() + "/postgres");
    if (generated) {
      // The CLI reads the source itself; this generator URI makes the same starting documents.
      out.printf("    %s%s='generator:demo?seed=%d&initialDocuments=%d&keySpace=%d' mongo-cdc mirror suggest-columns %s"
          + " --collection orders --temporal-address %s%n", ConfiguredPeerRegistry.ENV_PREFIX,
          DevStack.GENERATOR_PEER.toUpperCase(Locale.ROOT), options.seed(), options.initialDocuments(), options.keySpace(),
          MIRROR, target);
    }
    out.flush();
  }

  /** Shows progress until done, stopped or failed; returns true if the mirror failed. */
  private boolean showProgress(DevStack stack, CountDownLatch stop, BooleanSupplier done, BooleanSupplier failed)
      throws Exception {
    ProgressBar bar = options.headless() || terminal != null ? null
        : RecordsProgressBar.start("mirror " + MIRROR, options.events());
    try {
      DeliveryRate deliveryRate = new DeliveryRate();
      int polls = 0;
      cpu.sample();
      while (!stop.await(500, TimeUnit.MILLISECONDS)) {
        cpu.sample();
        // Asked before the catalog is read, so the frame drawn last shows everything delivered.
        boolean finished = done.getAsBoolean();
        if (terminal != null || bar != null) {
          Progress progress = progress(stack);
          double rate = deliveryRate.sample(System.nanoTime(), progress.records);
          if (terminal != null) {
            streamingLines = phaseLines(progress, rate, terminal.width());
            terminal.show(streamingLines);
          } else {
            bar.stepTo(progress.records);
            // The line is cut at the terminal's width: while the snapshot copies, it leads.
            boolean snapshotting = progress.snapshotPartitionsDone < progress.snapshotPartitions;
            bar.setExtraMessage(snapshotting
                ? String.format(" snapshot %d/%d partitions, %,d docs copied", progress.snapshotPartitionsDone,
                    progress.snapshotPartitions, progress.snapshotDocuments)
                : String.format(" %,.0f rec/s, batch %d, checkpoint lag %s", rate, progress.batches,
                    progress.checkpointLagSeconds < 0 ? "?" : progress.checkpointLagSeconds + " s"));
          }
        }
        if (finished) {
          return false;
        }
        if (++polls % 4 == 0 && failed.getAsBoolean()) {
          return true;
        }
      }
      return false;
    } finally {
      if (bar != null) {
        bar.close();
      }
    }
  }

  /** The progress area's lines: the snapshot's, then streaming's. */
  private List<String> phaseLines(Progress progress, double rate, int width) {
    List<String> lines = new ArrayList<>();
    if (progress.snapshotPartitions > 0) {
      String copied = String.format("%d/%d partitions, %,d documents copied", progress.snapshotPartitionsDone,
          progress.snapshotPartitions, progress.snapshotDocuments);
      lines.add(progress.snapshotPartitionsDone < progress.snapshotPartitions
          ? PhaseLines.bar("snapshot", progress.snapshotPartitionsDone, progress.snapshotPartitions, copied, width)
          : PhaseLines.text("snapshot", "done: " + copied));
    }
    // How stale a reader of the destination is, the figure a user watches; not the checkpoint's age.
    String streamed = String.format("%,d%s records, %,.0f rec/s, batch %d, visible lag %s", progress.records,
        options.events() > 0 ? String.format("/%,d", options.events()) : "", rate, progress.batches,
        progress.visibleLagSeconds < 0 ? "?" : progress.visibleLagSeconds + " s");
    lines.add(options.events() > 0
        ? PhaseLines.bar("streaming", progress.records, options.events(), streamed, width)
        : PhaseLines.text("streaming", streamed));
    return lines;
  }

  private record Progress(long records, long batches, long checkpointLagSeconds, long visibleLagSeconds,
      long snapshotPartitions, long snapshotPartitionsDone, long snapshotDocuments) {}

  private static Progress progress(DevStack stack) {
    MirrorProgress catalog = stack.progress();
    MirrorProgress.BatchTotals batches = catalog.batchTotals(MIRROR);
    MirrorProgress.SnapshotTotals snapshot = catalog.snapshotTotals(MIRROR);
    return new Progress(batches.records(), batches.lastBatchId(), catalog.checkpointAgeSeconds(MIRROR).orElse(-1L),
        catalog.visibleLagSeconds(MIRROR).orElse(-1L),
        snapshot.partitions(), snapshot.partitionsDone(), snapshot.documentsCopied());
  }

  /** True once the catalog's committed checkpoint is at or past {@code token}. */
  private static boolean delivered(DevStack stack, ResumeToken token) {
    if (token == null) {
      return true;
    }
    try {
      String committed = stack.progress().committedTokens(List.of(MIRROR)).get(MIRROR);
      return committed != null && ResumeToken.of(committed).compareTo(token) >= 0;
    } catch (DataAccessException e) {
      return false;
    }
  }

  /**
   * Whether every copy, with the sweep after it, is over: the batches stream beside a copy, so
   * the events can all be delivered with partitions still to copy.
   */
  private static boolean copiesOver(CdcFlowWorkflow workflow) {
    try {
      return workflow.status().copiesOver();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Whether the mirror is moving its checkpoint: running or snapshotting, not paused or failing. */
  private static boolean delivering(CdcFlowWorkflow workflow) {
    try {
      MirrorPhase state = workflow.status().state();
      return state == MirrorPhase.RUNNING || state == MirrorPhase.SNAPSHOTTING || state == MirrorPhase.SETTING_UP;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static void awaitClosed(DevStack stack) {
    try {
      stack.client.newUntypedWorkflowStub("mirror-" + MIRROR).getResult(CLOSE_AT_MOST.toSeconds(), TimeUnit.SECONDS,
          Object.class);
    } catch (Exception e) {
      // The summary is still worth printing; the workflow ends with the server anyway.
    }
  }

  /**
   * Tampers with the destination if asked, then runs the VerifyMirror workflow (repairing if
   * asked) against the source as it is now: for the generator, its final state.
   */
  private DevReport.Verify verify(DevStack stack, MirrorConfig mirror, CountDownLatch stop, Long stoppedAt)
      throws Exception {
    DevTamper.Tampered tampered = new DevTamper.Tampered(0, 0, 0);
    if (options.tamper() > 0) {
      try (Connection connection = stack.dataSource().getConnection()) {
        tampered = DevTamper.tamper(connection, SCHEMA, mirror.collections().stream()
            .map(c -> new Namespace(mirror.sourceDatabase(), c)).toList(), options.tamper());
      }
      out.printf("tampered with %d destination rows behind the mirror's back: %d changed, %d deleted, %d added%n",
          tampered.total(), tampered.updated(), tampered.deleted(), tampered.added());
    }
    out.printf("verifying the destination against the source%s...%n", options.repair() ? ", repairing" : "");
    out.flush();
    VerifyMirrorWorkflow verify = stack.client.newWorkflowStub(VerifyMirrorWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(MirrorIds.verifyWorkflowId(MIRROR)).setTaskQueue(DevStack.TASK_QUEUE).build());
    long started = System.nanoTime();
    CompletableFuture<VerifyResult> running = WorkflowClient.execute(verify::run,
        new VerifyRequest(mirror, options.repair(), null, null));
    VerifyResult result = untilStopped(running, stop, stoppedAt, () -> showVerifyProgress(verify));
    if (result == null) {
      // Stopped: the verify workflow ends here; what it judged so far is in the catalog's verify_runs.
      WorkflowStub.fromTyped(verify).terminate("mongo-cdc dev was stopped");
      double seconds = (System.nanoTime() - started) / 1e9;
      out.printf("verify: interrupted by the stop after %.1f s, not finished; run 'mongo-cdc mirror verify' on a"
          + " running mirror to compare it all%n", seconds);
      return new DevReport.Verify(tampered.total(), 0, 0, 0, 0, 0, seconds, true);
    }
    out.printf("verify: %,d documents compared in %d ranges in %.1f s; %s%s%n", result.documentsCompared(),
        result.ranges(), result.seconds(), VerifyFindings.of(result),
        options.repair() ? ", " + result.repaired() + " repaired" : "");
    return new DevReport.Verify(tampered.total(), result.ranges(), result.documentsCompared(), result.differing(),
        result.unsettled(), result.repaired(), result.seconds(), false);
  }

  /**
   * The verify's result, or null once a stop cut it short: a stop seen while it runs ends it at
   * once, and after a stop seen before it began it runs until {@link #VERIFY_AFTER_STOP_AT_MOST}
   * after that stop.
   */
  /** The verify line under the streaming ones, while the verify runs (interactive runs only). */
  private void showVerifyProgress(VerifyMirrorWorkflow verify) {
    if (terminal == null) {
      return;
    }
    VerifyProgress progress;
    try {
      progress = verify.progress();
    } catch (RuntimeException notYet) {
      return;
    }
    List<String> lines = new ArrayList<>(streamingLines);
    String figures = String.format("%d/%d ranges, %,d documents compared, %s", progress.rangesDone(),
        progress.rangesTotal(), progress.documentsCompared(), VerifyFindings.soFar(progress));
    lines.add(PhaseLines.bar("verify", progress.rangesDone(), progress.rangesTotal(), figures, terminal.width()));
    terminal.show(lines);
  }

  private static VerifyResult untilStopped(CompletableFuture<VerifyResult> running, CountDownLatch stop, Long stoppedAt,
      Runnable whileWaiting)
      throws Exception {
    Long deadline = stoppedAt == null ? null : stoppedAt + VERIFY_AFTER_STOP_AT_MOST.toNanos();
    while (true) {
      try {
        return running.get(200, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        whileWaiting.run();
        boolean stoppedNow = deadline == null && stop.getCount() == 0;
        boolean outOfTime = deadline != null && System.nanoTime() >= deadline;
        if (stoppedNow || outOfTime) {
          return null;
        }
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
    }
  }

  private DevReport report(DevStack stack, boolean generated, GeneratedChangeStream generator,
      List<String> collections, String database, DevReport.Verify verified, Instant steadyEnd) throws SQLException {
    cpu.sample();
    try (Connection connection = stack.dataSource().getConnection()) {
      MirrorProgress catalog = stack.progress();
      BatchStatistics batches = BatchStatistics.of(catalog, MIRROR);
      List<Namespace> namespaces = collections.stream().map(c -> new Namespace(database, c)).toList();
      long rows = DestinationComparison.liveRows(connection, SCHEMA, namespaces);
      Boolean matches = null;
      long mismatched = 0;
      long sourceEvents = batches.records();
      long quarantined = catalog.quarantined(MIRROR);
      if (generated) {
        // The generator's model leaves its poison events out: the destination cannot hold them,
        // so each must be in quarantine instead. Its documents are compared as the rules in effect
        // leave them: an edit may have added rules, whose rewrite reaches the rows written before.
        FieldRuleSettings rules = stack.registered(MIRROR).map(mirror -> mirror.settings().fieldRules())
            .orElse(options.settings().fieldRules());
        mismatched = DestinationComparison.mismatches(connection, SCHEMA, namespaces, generator.collections(options.seed()),
            MirrorRedaction.of(rules, options.fieldHashKey()))
            + Math.abs(generator.poisonEventsGenerated() - quarantined);
        matches = mismatched == 0;
        sourceEvents = generator.eventsGenerated();
      }
      double phase = batches.phaseSeconds();
      double rate = phase > 0 ? sourceEvents / phase : 0;
      Double cores = cpu.coresBusy(batches.phaseStart(), batches.phaseEnd());
      Histogram freshness = batches.phaseStart() == null ? new Histogram(2)
          : stack.freshness.between(steadyStart(batches.phaseStart(), steadyEnd).toEpochMilli(), steadyEnd.toEpochMilli());
      boolean measured = freshness.getTotalCount() > 0;
      return new DevReport(generated ? "generator" : "mongodb", catalog.snapshotTotals(MIRROR).documentsCopied(), sourceEvents,
          batches.records(), rows, matches,
          mismatched, batches.batches(), batches.lastBatchId(), Math.round(phase * 1000) / 1000.0,
          Math.round(rate * 10) / 10.0, cores == null ? null : Math.round(cores * 100) / 100.0, batches.p50Millis(),
          batches.p99Millis(), quarantined, historyRows(connection, database), catalog.historyRowsReported(MIRROR),
          verified, measured ? freshness.getValueAtPercentile(50) : null,
          measured ? freshness.getValueAtPercentile(99) : null, measured ? freshness.getMaxValue() : null);
    }
  }

  /** Where the steady part of a batch phase from {@code phaseStart} to {@code steadyEnd} starts. */
  static Instant steadyStart(Instant phaseStart, Instant steadyEnd) {
    Duration third = Duration.between(phaseStart, steadyEnd).dividedBy(3);
    return phaseStart.plus(third.compareTo(STEADY_AFTER) < 0 ? third : STEADY_AFTER);
  }

  private long historyRows(Connection connection, String database) throws SQLException {
    long rows = 0;
    for (String collection : options.settings().history().collections()) {
      String table = TableNaming.historyTableName(TableNaming.tableName(new Namespace(database, collection)));
      rows += SqlNumber.of(connection, "select count(*) from " + TableNaming.qualified(SCHEMA, table));
    }
    return rows;
  }

  /** @param last the catalog at the end: a snapshot the stop cut short explains rows that differ */
  private void printSummary(DevReport report, Progress last) {
    String snapshotCut = last.snapshotPartitionsDone() < last.snapshotPartitions()
        ? String.format("; the snapshot was stopped after %d of %d partitions, so rows it had not copied yet are"
            + " missing", last.snapshotPartitionsDone(), last.snapshotPartitions())
        : "";
    out.printf("summary: %,d documents copied by the snapshot, %,d source events, %,d records delivered in %d batches (%,.0f events/s"
            + " over %.1f s of batches, %s cores busy; batch p50 %d ms, p99 %d ms); %,d live destination rows%s%s%s%s%s%n",
        report.snapshotDocuments(), report.sourceEvents(), report.deliveredRecords(), report.batches(), report.eventsPerSecond(),
        report.batchPhaseSeconds(), report.cpuCoresBusy() == null ? "?" : String.format("%.2f", report.cpuCoresBusy()),
        report.batchLatencyP50Ms(), report.batchLatencyP99Ms(), report.destinationRows(),
        report.freshnessP99Ms() == null ? "" : String.format("; freshness p50 %d ms, p99 %d ms, max %d ms",
            report.freshnessP50Ms(), report.freshnessP99Ms(), report.freshnessMaxMs()),
        report.destinationMatchesSource() == null ? ""
            : report.destinationMatchesSource() ? "; the destination matches the source"
                : "; " + report.mismatchedRows() + " rows DIFFER from the source",
        report.historyRows() == 0 ? "" : "; " + report.historyRows() + " history rows",
        snapshotCut,
        report.quarantinedEvents() == 0 ? "" : "; " + report.quarantinedEvents()
            + " events in quarantine (mongo_cdc.quarantined_events)");
  }
}
