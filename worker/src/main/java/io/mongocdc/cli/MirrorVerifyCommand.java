package io.mongocdc.cli;

import io.mongocdc.verify.VerifyFindings;
import io.mongocdc.workflows.VerifyMirrorStart;
import io.mongocdc.workflows.VerifyMirrorWorkflow;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.VerifyProgress;
import io.mongocdc.workflows.model.VerifyRequest;
import io.mongocdc.workflows.model.VerifyResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Compare the mirror's destination tables with its source, _id range by range, on the cluster "
        + "(workflow verify-<name>); list what differs (catalog tables verify_runs, verify_ranges). A verify already "
        + "running for the mirror is followed instead of started again.")
final class MirrorVerifyCommand extends MirrorSubcommand {

  /** How often the progress bar asks the workflow. */
  static final long POLL_MILLIS = 500;

  @Option(names = "--repair", description = "Re-copy the documents found to differ and delete the rows the source "
      + "no longer has; a change streamed since still wins.")
  boolean repair;

  @Option(names = "--documents-per-second", paramLabel = "N",
      description = "Source documents read per second, at most, over all ranges, for this run (default: the "
          + "mirror's verifyDocumentsPerSecond, set by --verify-documents-per-second on create or edit).")
  Integer documentsPerSecond;

  @Option(names = "--parallel-ranges", paramLabel = "N",
      description = "Ranges compared at the same time (default: the mirror's snapshotParallelPartitions).")
  Integer parallelRanges;

  @Option(names = "--no-progress", description = "Print no progress bar (for scripts).")
  boolean noProgress;

  MirrorVerifyCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) throws Exception {
    // The configuration in effect says which collections and tables to compare.
    MirrorConfig config = mirror.workflow(client).status().config();
    VerifyRequest request = new VerifyRequest(config, repair, documentsPerSecond, parallelRanges);
    VerifyMirrorStart started;
    try {
      started = VerifyMirrorStart.start(client, mirror.temporal.taskQueue(), request);
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage(), ExitCodes.INVALID);
    }
    if (started.alreadyRunning()) {
      out.printf("mirror %s: a verify is running already (workflow %s); following it%n", mirror.name,
          started.workflowId());
    } else {
      out.printf("mirror %s: verify started (workflow %s)%s%n", mirror.name, started.workflowId(),
          repair ? ", repairing" : "");
    }
    out.flush();
    VerifyResult result = await(started.workflow(), out);
    print(result, out);
  }

  private VerifyResult await(VerifyMirrorWorkflow verify, PrintWriter out) throws Exception {
    CompletableFuture<VerifyResult> result = WorkflowStub.fromTyped(verify).getResultAsync(VerifyResult.class);
    ProgressBar bar = noProgress ? null : new ProgressBarBuilder()
        .setTaskName("verify " + mirror.name)
        .setStyle(ProgressBarStyle.ASCII)
        .setUnit(" ranges", 1)
        .setInitialMax(-1)
        .build();
    try {
      while (true) {
        try {
          return result.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException stillRunning) {
          if (bar != null) {
            VerifyProgress progress = verify.progress();
            if (progress.rangesTotal() > 0) {
              bar.maxHint(progress.rangesTotal());
            }
            bar.stepTo(progress.rangesDone());
            bar.setExtraMessage(String.format(" %,d docs compared, %s", progress.documentsCompared(),
                VerifyFindings.soFar(progress)));
          }
        }
      }
    } finally {
      if (bar != null) {
        bar.close();
      }
    }
  }

  static void print(VerifyResult result, PrintWriter out) {
    out.printf("%-24s %7s %12s %12s %8s %8s %10s %10s %9s%n", "collection", "ranges", "source", "destination",
        "missing", "extra", "different", "unsettled", "repaired");
    for (VerifyResult.Collection c : result.collections()) {
      out.printf("%-24s %7d %12d %12d %8d %8d %10d %10d %9d%n", c.collection(), c.ranges(), c.sourceDocuments(),
          c.destinationDocuments(), c.missing(), c.extra(), c.different(), c.unsettled(), c.repaired());
    }
    for (String skipped : result.skippedCollections()) {
      out.printf("%-24s skipped: copied with a snapshot filter%n", skipped);
    }
    out.printf("verify run %d: %,d documents compared in %d ranges in %.1f s; %s%s%n", result.runId(),
        result.documentsCompared(), result.ranges(), result.seconds(), VerifyFindings.of(result),
        result.mismatches() == 0 ? ""
            : (result.repair() ? ", " + result.repaired() + " repaired" : "")
                + " (select * from mongo_cdc.verify_ranges where run_id = " + result.runId() + " and sample_ids <> '[]')");
  }
}
