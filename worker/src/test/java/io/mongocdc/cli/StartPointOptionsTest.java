package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.devtools.generator.ResumeTokens;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.model.Checkpoint;
import java.util.UUID;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** The forms {@code --start-at} and {@code --start-after} take, and the errors for what they do not. */
class StartPointOptionsTest {

  private static final ResumeToken TOKEN =
      ResumeTokens.event(new BsonTimestamp(1_796_083_200, 7), 0, UUID.nameUUIDFromBytes(new byte[] {1}), new BsonInt32(42));

  @Test
  void aTimeIsItsSecondWithIncrementZeroWhateverItsOffset() {
    assertEquals(Checkpoint.atOperationTime(1_796_083_200L, 0), StartPointOptions.atTime("2026-12-01T00:00:00Z"));
    assertEquals(Checkpoint.atOperationTime(1_796_083_200L, 0), StartPointOptions.atTime("2026-12-01T01:00:00.750+01:00"),
        "counted from the start of its second");
  }

  @Test
  void aClusterTimeIsSecondsAndIncrement() {
    assertEquals(Checkpoint.atOperationTime(1_796_083_200L, 3), StartPointOptions.atTime("1796083200.3"));
    IllegalArgumentException tooBig =
        assertThrows(IllegalArgumentException.class, () -> StartPointOptions.atTime("99999999999.1"));
    assertTrue(tooBig.getMessage().contains("at most 4294967295"), tooBig.getMessage());
  }

  @Test
  void aTimeWithoutItsOffsetIsRefusedRatherThanGuessed() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> StartPointOptions.atTime("2026-12-01T00:00:00"));
    assertTrue(e.getMessage().contains("ISO-8601 time with its offset"), e.getMessage());
  }

  @Test
  void aTokenIsTakenAsHexAsADocumentAndAsDebeziumAndTheKafkaConnectorStoreIt() {
    Checkpoint expected = Checkpoint.afterToken(TOKEN.data(), 1_796_083_200L, 7);
    assertEquals(expected, StartPointOptions.afterToken(TOKEN.data()));
    assertEquals(expected, StartPointOptions.afterToken("{\"_data\": \"" + TOKEN.data() + "\"}"));
    assertEquals(expected, StartPointOptions.afterToken(
        "{\"sec\": 1796083200, \"ord\": 7, \"transaction_id\": null, \"resume_token\": \"" + TOKEN.data() + "\"}"));
    assertEquals(expected, StartPointOptions.afterToken("{\"_id\": \"{\\\"_data\\\": \\\"" + TOKEN.data() + "\\\"}\"}"));
  }

  @Test
  void onlyAnOffsetTheKafkaConnectorMarkedAsTakenDuringItsCopyIsOne() {
    String kafka = "{\"_id\": \"{\\\"_data\\\": \\\"" + TOKEN.data() + "\\\"}\", \"copy\": ";
    assertTrue(StartPointOptions.takenDuringACopy(kafka + "\"true\"}"));
    assertTrue(StartPointOptions.takenDuringACopy(kafka + "true}"));
    assertFalse(StartPointOptions.takenDuringACopy(kafka + "\"false\"}"));
    assertFalse(StartPointOptions.takenDuringACopy("{\"_data\": \"" + TOKEN.data() + "\"}"));
    assertFalse(StartPointOptions.takenDuringACopy(TOKEN.data()));
    // Debezium's offsets of its initial sync carry no token at all.
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> StartPointOptions.afterToken("{\"sec\": 1796083200, \"ord\": 7, \"initsync\": true}"))
        .getMessage().contains("found no resume token"));
  }

  @Test
  void whatIsNotATokenSaysWhy() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> StartPointOptions.afterToken("{\"offset\": 3}"))
        .getMessage().contains("found no resume token"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> StartPointOptions.afterToken("{not json"))
        .getMessage().contains("is not valid JSON"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> StartPointOptions.afterToken("0102"))
        .getMessage().contains("takes a change stream resume token"), "a hex string without a cluster time");
  }
}
