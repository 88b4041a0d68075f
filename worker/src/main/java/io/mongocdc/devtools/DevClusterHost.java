package io.mongocdc.devtools;

import io.mongocdc.privacy.MirrorRedaction;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.mongocdc.catalog.MirrorProgress;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.devtools.generator.GeneratorUri;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.StopRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import me.tongfei.progressbar.ProgressBar;

/**
 * {@code mongo-cdc dev --workers 0}: a cluster host. It runs the standalone Temporal server and
 * the embedded PostgreSQL and no worker, writes a peers file with the generator peer and the
 * destination peer, prints the {@code mongo-cdc worker} command that joins them, creates the
 * mirrors and, once they delivered every event of a bounded generator, checks each one's
 * destination against the generator's final state, which it computes from the peer's URI as
 * every worker does.
 */
public final class DevClusterHost {

  /** The source peer of the mirrors, in the peers file. */
  public static final String GENERATOR_PEER = "generator";
  static final String DATABASE = "demo";
  private static final Duration CLOSE_AT_MOST = Duration.ofSeconds(5);

  /**
   * What the user asked for.
   *
   * @param peersFile where to write the peers file; null for a new file in the temporary directory
   * @param workerCommand how the printed worker command line starts ({@code java -jar <jar>})
   */
  public record Options(int temporalPort, int mirrors, int collections, long events, int rate, long seed,
      int initialDocuments, int keySpace,
      Path peersFile, Path report, boolean headless, MirrorSettings settings, String workerCommand) {}

  /** One mirror's outcome; {@code matches} is null when there was nothing to compare with. */
  public record MirrorResult(String mirror, String schema, boolean complete, long deliveredRecords, long batches,
      long destinationRows, long mismatchedRows, Boolean matches) {}

  /**
   * What {@code --report} writes in this mode.
   *
   * @param streamingSeconds from the first batch that delivered records starting to the last one
   *     ending, over all mirrors (the catalog's batch history); 0 if none delivered
   * @param eventsPerSecond records all mirrors delivered over {@code streamingSeconds}: the
   *     cluster's throughput; 0 if none delivered
   * @param destinationMatchesSource every mirror delivered every event and its destination equals
   *     the generator's final state; null for an endless generator or a run stopped before
   */
  public record ClusterReport(String generatorUri, int mirrors, long eventsPerMirror, List<MirrorResult> results,
      double streamingSeconds, long eventsPerSecond, Boolean destinationMatchesSource) {}

  private final Options options;
  private final PrintWriter out;

  public DevClusterHost(Options options, PrintWriter out) {
    this.options = options;
    this.out = out;
  }

  /** Runs until every mirror delivered the generator's last event (when {@code events > 0}) or {@code stop} counts down. */
  public ClusterReport run(CountDownLatch stop) throws Exception {
    // Event times start now, so a mirror's lag means something; the URI fixes them for every worker.
    GeneratorUri uri = new GeneratorUri(DATABASE, options.seed(), options.events(), options.rate(),
        options.collections(), options.initialDocuments(), options.keySpace(), 5, Instant.now().truncatedTo(ChronoUnit.SECONDS));
    // Workers compute the same stream from the URI; this process only needs its end, meanwhile.
    CompletableFuture<GeneratorUri.FinalState> finalState = options.events() > 0
        ? CompletableFuture.supplyAsync(uri::finalState)
        : null;
    List<String> mirrors = new ArrayList<>();
    for (int i = 1; i <= options.mirrors(); i++) {
      mirrors.add("dev-" + i);
    }
    try (DevStack stack = DevStack.startHost(options.temporalPort())) {
      Path peersFile = writePeersFile(uri, stack.jdbcUrl);
      for (String mirror : mirrors) {
        MirrorConfig config = new MirrorConfig(mirror, GENERATOR_PEER, DevStack.DESTINATION_PEER, DATABASE,
            uri.collectionNames(), schemaOf(mirror), options.settings()).requireValid();
        CdcFlowWorkflow workflow = stack.client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
            .setWorkflowId(MirrorIds.workflowId(mirror)).setTaskQueue(DevStack.TASK_QUEUE).build());
        WorkflowClient.start(workflow::run, CdcFlowInput.newMirror(config));
      }
      printIntroduction(stack, uri, peersFile, mirrors);

      boolean complete = awaitMirrors(stack, stop, mirrors, finalState);
      stopMirrors(stack, mirrors);
      ClusterReport report = report(stack, uri, mirrors, complete ? finalState.get() : null);
      printSummary(report);
      if (options.report() != null) {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(options.report().toFile(), report);
        out.printf("report written to %s%n", options.report());
      }
      out.println("the Temporal server and the database stop now: stop the workers too (Ctrl-C or SIGTERM).");
      out.flush();
      return report;
    } finally {
      if (finalState != null) {
        finalState.cancel(true);
      }
    }
  }

  /** The destination schema of a dev mirror: its name, as an identifier. */
  static String schemaOf(String mirror) {
    return mirror.replace('-', '_');
  }

  private Path writePeersFile(GeneratorUri uri, String jdbcUrl) throws Exception {
    Path file = options.peersFile() != null ? options.peersFile()
        : Files.createTempFile("mongo-cdc-dev-peers-", ".properties");
    // Written by hand, not by Properties.store, which would escape every ':' and '=' of the URIs.
    String text = "# The peers of the mirrors of 'mongo-cdc dev --workers 0'. Nothing here is secret: the\n"
        + "# generator has no credentials and the embedded PostgreSQL trusts local connections.\n"
        + GENERATOR_PEER + ".uri=" + uri.toUri() + "\n"
        + DevStack.DESTINATION_PEER + ".uri=" + jdbcUrl + "\n";
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private void printIntroduction(DevStack stack, GeneratorUri uri, Path peersFile, List<String> mirrors) {
    String target = "localhost:" + stack.temporalPort;
    out.printf("mongo-cdc dev: cluster host up; it runs no worker (--workers 0).%n");
    out.printf("  Temporal:    %s (namespace default, task queue %s)%n", target, DevStack.TASK_QUEUE);
    out.printf("  catalog and destination (admin SQL): %s%n", stack.jdbcUrl);
    out.printf("  peers file:  %s%n", peersFile);
    out.printf("    %s.uri=%s%n", GENERATOR_PEER, uri.toUri());
    out.printf("    %s.uri=%s%n", DevStack.DESTINATION_PEER, stack.jdbcUrl);
    out.printf("  mirrors:     %s (%s -> %s, schemas %s), created; they run once a worker polls%n",
        String.join(", ", mirrors), GENERATOR_PEER, DevStack.DESTINATION_PEER,
        String.join(", ", mirrors.stream().map(DevClusterHost::schemaOf).toList()));
    out.printf("  start workers, each in its own terminal, as many as you like (stop and restart them at will):%n");
    for (int worker = 1; worker <= 2; worker++) {
      out.printf("    %s worker --temporal-address %s --catalog-url '%s' --peers-file %s --no-sticky-workflows"
          + " --identity worker-%d%n", options.workerCommand(), target, stack.jdbcUrl, peersFile, worker);
    }
    out.printf("  (--no-sticky-workflows: this standalone server never hands a stopped worker's workflow tasks to"
        + " the others)%n");
    out.printf("  watch:%n");
    out.printf("    psql '%s' -c 'select mirror, state, committed_batch_id, replication_lag from mongo_cdc.mirror_status'%n",
        "postgresql://postgres@localhost:" + stack.postgres.getPort() + "/postgres");
    out.printf("    temporal workflow query --address %s --workflow-id %s --type status%n", target,
        MirrorIds.workflowId(mirrors.get(0)));
    out.printf(options.events() > 0
        ? "  the host checks every mirror once all %,d events of each are delivered; Ctrl-C stops it before%n"
        : "  the generator has no end (--events 0): Ctrl-C stops the host%n", options.events());
    out.flush();
  }

  /** Waits for every mirror to commit the generator's last event; false if stopped or a mirror failed first. */
  private boolean awaitMirrors(DevStack stack, CountDownLatch stop, List<String> mirrors,
      CompletableFuture<GeneratorUri.FinalState> finalState) throws Exception {
    long total = options.events() * mirrors.size();
    ProgressBar bar = options.headless() ? null : RecordsProgressBar.start(mirrors.size() + " mirrors", total);
    try {
      MirrorProgress catalog = stack.progress();
      while (!stop.await(500, TimeUnit.MILLISECONDS)) {
        if (bar != null) {
          bar.stepTo(catalog.recordsDelivered(mirrors));
        }
        Optional<String> failed = catalog.firstFailed(mirrors);
        if (failed.isPresent()) {
          out.printf("%nmirror %s FAILED: the host stops without checking (see mongo_cdc.mirror_status)%n", failed.get());
          return false;
        }
        if (finalState != null && finalState.isDone()
            && allDelivered(catalog, mirrors, finalState.get().lastEventToken())) {
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

  /** True once every mirror's committed checkpoint is at or past {@code last} (null: the generator made no event). */
  private static boolean allDelivered(MirrorProgress catalog, List<String> mirrors, ResumeToken last) {
    Map<String, String> committed = catalog.committedTokens(mirrors);
    for (String mirror : mirrors) {
      String token = committed.get(mirror);
      if (last != null && (token == null || ResumeToken.of(token).compareTo(last) < 0)) {
        return false;
      }
    }
    return true;
  }

  /** Terminates the mirrors, the batches in flight cancelled, and gives the workflows a moment to end. */
  private void stopMirrors(DevStack stack, List<String> mirrors) {
    for (String mirror : mirrors) {
      try {
        stack.client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(mirror)).terminate(new StopRequest(true));
      } catch (RuntimeException e) {
        // Ended already, or the server is going away with it.
      }
    }
    long deadline = System.nanoTime() + CLOSE_AT_MOST.toNanos();
    for (String mirror : mirrors) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        stack.client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror)).getResult(left, TimeUnit.NANOSECONDS,
            Object.class);
      } catch (Exception e) {
        // No worker left to end it: it ends with the server.
      }
    }
  }

  private ClusterReport report(DevStack stack, GeneratorUri uri, List<String> mirrors,
      GeneratorUri.FinalState finalState) throws SQLException {
    List<MirrorResult> results = new ArrayList<>();
    boolean allMatch = true;
    Instant firstStart = null;
    Instant lastEnd = null;
    long delivered = 0;
    try (Connection connection = stack.dataSource().getConnection()) {
      for (String mirror : mirrors) {
        String schema = schemaOf(mirror);
        BatchStatistics batches = BatchStatistics.of(stack.progress(), mirror);
        delivered += batches.records();
        if (batches.phaseStart() != null) {
          firstStart = firstStart == null || batches.phaseStart().isBefore(firstStart) ? batches.phaseStart() : firstStart;
          lastEnd = lastEnd == null || batches.phaseEnd().isAfter(lastEnd) ? batches.phaseEnd() : lastEnd;
        }
        long rows = tablesExist(connection, schema) ? DestinationComparison.liveRows(connection, schema, uri.namespaces()) : 0;
        Boolean matches = null;
        long mismatched = 0;
        if (finalState != null) {
          mismatched = tablesExist(connection, schema)
              ? DestinationComparison.mismatches(connection, schema, uri.namespaces(), finalState.collections(),
                  MirrorRedaction.NONE)
              : uri.collectionNames().stream().mapToLong(finalState.collections()::estimatedCount).sum();
          matches = mismatched == 0;
          allMatch &= matches;
        }
        results.add(new MirrorResult(mirror, schema, finalState != null, batches.records(), batches.batches(), rows,
            mismatched, matches));
      }
    }
    double seconds = firstStart == null ? 0 : Duration.between(firstStart, lastEnd).toMillis() / 1000.0;
    return new ClusterReport(uri.toUri(), mirrors.size(), options.events(), results, seconds,
        seconds > 0 ? Math.round(delivered / seconds) : 0, finalState == null ? null : allMatch);
  }

  private static boolean tablesExist(Connection connection, String schema) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        "select count(*) from information_schema.tables where table_schema = ?")) {
      statement.setString(1, schema);
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        return row.getLong(1) > 0;
      }
    }
  }

  private void printSummary(ClusterReport report) {
    for (MirrorResult result : report.results()) {
      out.printf("mirror %s (schema %s): %,d records delivered in %d batches, %,d live rows%s%n", result.mirror(),
          result.schema(), result.deliveredRecords(), result.batches(), result.destinationRows(),
          result.matches() == null ? ""
              : result.matches() ? "; matches the generator" : "; " + result.mismatchedRows() + " rows DIFFER");
    }
    if (report.streamingSeconds() > 0) {
      out.printf("streaming: %,d events/s over all mirrors (first batch start to last batch end, %.1f s)%n",
          report.eventsPerSecond(), report.streamingSeconds());
    }
    out.printf("summary: %d mirrors, %,d events each; %s%n", report.mirrors(), report.eventsPerMirror(),
        report.destinationMatchesSource() == null
            ? "not checked (" + (report.eventsPerMirror() == 0 ? "the generator has no end" : "stopped before the end")
                + ")"
            : report.destinationMatchesSource() ? "the destination matches the generator in every mirror"
                : "the destination DIFFERS from the generator");
  }
}
