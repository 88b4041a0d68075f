package io.mongocdc.cli;

import io.mongocdc.workflows.model.MirrorIds;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Where Temporal is; shared by every command. Defaults come from the environment. */
public final class TemporalOptions {

  @Option(names = "--temporal-address", paramLabel = "HOST:PORT",
      defaultValue = "${env:MONGO_CDC_TEMPORAL_ADDRESS:-localhost:7233}",
      description = "Temporal frontend address (env MONGO_CDC_TEMPORAL_ADDRESS; default: ${DEFAULT-VALUE}).")
  String address;

  @Option(names = "--namespace", defaultValue = "${env:MONGO_CDC_TEMPORAL_NAMESPACE:-default}",
      description = "Temporal namespace (env MONGO_CDC_TEMPORAL_NAMESPACE; default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(names = "--task-queue", defaultValue = "${env:MONGO_CDC_TASK_QUEUE:-" + MirrorIds.DEFAULT_TASK_QUEUE + "}",
      description = "Task queue of the mirror workflows (env MONGO_CDC_TASK_QUEUE; default: ${DEFAULT-VALUE}).")
  String taskQueue;

  @Option(names = "--temporal-timeout", paramLabel = "SECONDS",
      defaultValue = "${env:MONGO_CDC_TEMPORAL_TIMEOUT:-30}",
      description = "How long one call to Temporal may take before it counts as unanswered (env "
          + "MONGO_CDC_TEMPORAL_TIMEOUT; default: ${DEFAULT-VALUE}); a busy machine needs more than the SDK's few seconds.")
  int timeoutSeconds;

  public String address() {
    return address;
  }

  public String namespace() {
    return namespace;
  }

  public String taskQueue() {
    return taskQueue;
  }

  /** The deadline of one call to Temporal. */
  public Duration timeout() {
    if (timeoutSeconds < 1) {
      throw new IllegalArgumentException("--temporal-timeout must be at least 1 second, got " + timeoutSeconds);
    }
    return Duration.ofSeconds(timeoutSeconds);
  }
}
