package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.pipeline.PullRecordsException;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;

/** Running out of heap is not retried for ever: the mirror fails and the operator is told what to lower. */
class FailureClassifierMemoryTest {

  @Test
  void anOutOfMemoryErrorInAPullIsNotRetriedAndNamesTheSettingToLower() {
    ApplicationFailure failure = FailureClassifier.classify(ActivityNames.PULL_RECORDS,
        new PullRecordsException("orders", new OutOfMemoryError("Java heap space"), null));

    assertEquals(FailureTypes.OUT_OF_MEMORY, failure.getType());
    assertTrue(failure.isNonRetryable());
    assertTrue(FailureTypes.NON_RETRYABLE.contains(failure.getType()), "the workflow's retry policies skip it too");
    String message = failure.getOriginalMessage();
    assertTrue(message.startsWith("PullRecords: the worker ran out of memory (Java heap space)"), message);
    assertTrue(message.contains("--max-decoded-bytes-in-flight"), message);
    assertTrue(message.contains("decodeWorkers"), message);
  }

  @Test
  void anOutOfMemoryErrorThatReachesTheActivityUnwrappedIsClassifiedTheSame() {
    ApplicationFailure failure = FailureClassifier.classify(ActivityNames.PULL_RECORDS, new OutOfMemoryError("Java heap space"));

    assertEquals(FailureTypes.OUT_OF_MEMORY, failure.getType());
    assertTrue(failure.isNonRetryable());
  }
}
