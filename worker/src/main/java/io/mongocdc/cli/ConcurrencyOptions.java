package io.mongocdc.cli;

import io.mongocdc.wiring.WorkerWiring;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.pipeline.DecodeThreads;
import io.temporal.worker.WorkerOptions;
import picocli.CommandLine.Option;

/**
 * How much work one worker process takes at once (see docs/operations.md, "Worker concurrency").
 * Activity slots bound how many mirrors' batches it runs; decode threads bound the CPU those
 * batches use together, whatever each mirror's {@code decodeWorkers}.
 */
final class ConcurrencyOptions {

  @Option(names = "--max-concurrent-activities", paramLabel = "N",
      defaultValue = "${env:MONGO_CDC_MAX_CONCURRENT_ACTIVITIES:-" + WorkerWiring.DEFAULT_MAX_CONCURRENT_ACTIVITIES
          + "}",
      description = "Activities the worker runs at once: each running mirror holds one for its batch, or up to"
          + " parallelPartitions while it copies a snapshot; others wait in the task queue"
          + " (env MONGO_CDC_MAX_CONCURRENT_ACTIVITIES; default: ${DEFAULT-VALUE}).")
  int maxConcurrentActivities = WorkerWiring.DEFAULT_MAX_CONCURRENT_ACTIVITIES;

  @Option(names = "--max-concurrent-workflow-tasks", paramLabel = "N",
      defaultValue = "${env:MONGO_CDC_MAX_CONCURRENT_WORKFLOW_TASKS:-"
          + WorkerWiring.DEFAULT_MAX_CONCURRENT_WORKFLOW_TASKS + "}",
      description = "Workflow tasks the worker runs at once (env MONGO_CDC_MAX_CONCURRENT_WORKFLOW_TASKS;"
          + " default: ${DEFAULT-VALUE}).")
  int maxConcurrentWorkflowTasks = WorkerWiring.DEFAULT_MAX_CONCURRENT_WORKFLOW_TASKS;

  @Option(names = "--decode-threads", paramLabel = "N", defaultValue = "${env:MONGO_CDC_DECODE_THREADS}",
      description = "Chunks all the worker's batches decode at once, whichever mirror they belong to; a mirror's"
          + " decodeWorkers caps its own share (env MONGO_CDC_DECODE_THREADS; default: the number of processors).")
  Integer decodeThreads;

  /**
   * The worker's options with these limits; see {@link WorkerWiring#workerOptions(String, boolean, int, int)}.
   *
   * @throws CliException if a limit is below 1
   */
  WorkerOptions workerOptions(String identity, boolean stickyWorkflows) {
    requireAtLeastOne("--max-concurrent-activities", maxConcurrentActivities);
    requireAtLeastOne("--max-concurrent-workflow-tasks", maxConcurrentWorkflowTasks);
    return WorkerWiring.workerOptions(identity, stickyWorkflows, maxConcurrentActivities, maxConcurrentWorkflowTasks);
  }

  /** {@code tuning} with these decode threads. @throws CliException if below 1 */
  PullTuning tuning(PullTuning tuning) {
    int threads = decodeThreads == null ? DecodeThreads.defaultMax() : decodeThreads;
    requireAtLeastOne("--decode-threads", threads);
    return tuning.withDecodeThreads(threads);
  }

  private static void requireAtLeastOne(String option, int value) {
    if (value < 1) {
      throw new CliException(option + " must be at least 1, got " + value, ExitCodes.INVALID);
    }
  }
}
