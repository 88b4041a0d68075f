package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.destination.DestinationLockedException;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which destination errors a retry can fix (issue 16: poison writes were retried for ever). */
class FailureClassifierDestinationTest {

  @ParameterizedTest(name = "SQLSTATE {0} is {1}")
  @CsvSource({
      "54000, DestinationRejected", // index row too large
      "22021, DestinationRejected", // invalid byte sequence for the encoding
      "23514, DestinationRejected", // a check constraint of the destination's own
      "23502, DestinationRejected", // not null violation
      "42P01, DestinationRejected", // the table was dropped
      "42501, DestinationRejected", // privilege revoked
      "23505, Transient", // a concurrent writer's duplicate key: the retry's merge updates the row
      "40001, Transient", // serialization failure
      "40P01, Transient", // deadlock
      "08006, Transient", // connection failure
      "57P01, Transient", // admin shutdown (a restart)
      "53100, Transient", // disk full: space can come back
  })
  void destinationErrorsAreRetriedOnlyWhenARetryCanFixThem(String sqlState, String type) {
    ApplicationFailure failure = FailureClassifier.classify(ActivityNames.PULL_RECORDS,
        new IllegalStateException("cannot apply", new SQLException("ERROR: boom", sqlState)));

    assertEquals(type, failure.getType());
    assertEquals(!FailureTypes.TRANSIENT.equals(type), failure.isNonRetryable());
    assertTrue(failure.getOriginalMessage().contains("SQLSTATE " + sqlState), failure.getOriginalMessage());
    assertFalse(failure.getOriginalMessage().contains("SQLException"), failure.getOriginalMessage());
  }

  @Test
  void aCopyThatKeptFindingItsRowsLockedIsRetriedAndSaysSo() {
    ApplicationFailure failure = FailureClassifier.classify(ActivityNames.COPY_SNAPSHOT_PARTITION,
        new DestinationLockedException("the copy kept finding its rows locked by other writers (change batches)"
            + " and gave way 3 times in 320 ms; what it had not committed is written again when the activity is retried",
            new SQLException("ERROR: canceling statement due to lock timeout", "55P03")));

    assertEquals(FailureTypes.TRANSIENT, failure.getType());
    assertFalse(failure.isNonRetryable());
    assertTrue(failure.getOriginalMessage().contains("the copy kept finding its rows locked"),
        failure.getOriginalMessage());
  }
}
