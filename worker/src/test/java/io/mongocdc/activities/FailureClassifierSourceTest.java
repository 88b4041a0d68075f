package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.snapshot.UnsupportedSourceReadException;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.OversizedEventException;
import io.mongocdc.source.SourceAccessDeniedException;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;

/** The source's own classification (retryable or not) reaches the activity's failure types. */
class FailureClassifierSourceTest {

  @Test
  void aReadTheSourceCannotServeIsAnInvalidConfiguration() {
    ApplicationFailure unsupported = FailureClassifier.classify(ActivityNames.VERIFY_RANGE,
        new UnsupportedSourceReadException("this source cannot sample documents"));
    assertEquals(FailureTypes.INVALID_CONFIGURATION, unsupported.getType());
    assertTrue(unsupported.isNonRetryable());
    assertTrue(unsupported.getOriginalMessage().contains("this source cannot sample documents"),
        unsupported.getOriginalMessage());
  }

  @Test
  void sourceFailuresThatRetryingCannotFixAreNotRetried() {
    ApplicationFailure oversized = FailureClassifier.classify(ActivityNames.PULL_RECORDS,
        new OversizedEventException("a change event is larger than 16 MiB; enable splitLargeEvents", null));
    assertEquals(FailureTypes.INVALID_CONFIGURATION, oversized.getType());
    assertTrue(oversized.isNonRetryable());
    assertTrue(oversized.getOriginalMessage().contains("splitLargeEvents"), oversized.getOriginalMessage());

    ApplicationFailure denied = FailureClassifier.classify(ActivityNames.PULL_RECORDS,
        new SourceAccessDeniedException("the mirror's MongoDB user lacks a privilege", 13, null));
    assertEquals(FailureTypes.AUTHENTICATION_FAILED, denied.getType());

    ApplicationFailure stepDown = FailureClassifier.classify(ActivityNames.PULL_RECORDS,
        new ChangeStreamException("not primary", 10107, true, null));
    assertEquals(FailureTypes.TRANSIENT, stepDown.getType());
    assertTrue(!stepDown.isNonRetryable());
  }
}
