package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.activities.FailureClassifier;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Random;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Poison events the destination would refuse on every attempt (issue 16): a key too long for the
 * primary key's index, and a collection whose table another collection holds. The screen finds
 * them before anything is written; without it, the first fails the whole transaction with
 * SQLSTATE 54000, which is now classified as not retryable.
 */
class PostgresRecordScreenTest {

  private static final DataSource DATABASE = EmbeddedPostgresSupport.newDatabase("screen");
  private static final Namespace ORDERS = new Namespace("shop", "orders");

  /** Letters and digits at random: pglz finds nothing to compress, as in a real random _id. */
  private static String randomKey(int length, long seed) {
    String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    Random random = new Random(seed);
    StringBuilder key = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      key.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return '"' + key.substring(2) + '"';
  }

  private static List<DestinationTable> setUp(String schema, Namespace... sources) throws SQLException {
    try (Connection c = DATABASE.getConnection()) {
      return PostgresDestination.setUp(c, schema, List.of(sources));
    }
  }

  private static void apply(String schema, List<DestinationTable> tables, ChangeRecord record) throws Exception {
    try (PostgresRecordSink sink = PostgresRecordSink.builder(DATABASE, PostgresSinkOptions.defaults().withSchema(schema),
        tables).open()) {
      sink.write(List.of(record));
      sink.commit();
    }
  }

  @Test
  void aKeyTooLongForTheIndexFailsEveryAttemptWithoutTheScreenAndIsNotRetried() throws Exception {
    List<DestinationTable> tables = setUp("long_keys", ORDERS);
    ChangeRecord huge = Records.insert(ORDERS, randomKey(3_000, 1), "{\"n\":1}", 1);

    SQLException refused = assertThrows(SQLException.class, () -> apply("long_keys", tables, huge));

    assertEquals("54000", refused.getSQLState(), refused.getMessage());
    ApplicationFailure failure = FailureClassifier.classify(ActivityNames.PULL_RECORDS, refused);
    assertEquals(FailureTypes.DESTINATION_REJECTED, failure.getType());
    assertTrue(failure.isNonRetryable());
    assertTrue(failure.getOriginalMessage().contains("54000"), failure.getOriginalMessage());
  }

  @Test
  void theScreenRefusesKeysOverTheLimitAndEveryKeyItAcceptsIsStored() throws Exception {
    List<DestinationTable> tables = setUp("key_limit", ORDERS);
    PostgresRecordScreen screen = new PostgresRecordScreen(DATABASE, "key_limit", tables);
    ChangeRecord atLimit = Records.insert(ORDERS, randomKey(PostgresRecordScreen.MAX_KEY_BYTES, 2), "{}", 1);
    ChangeRecord over = Records.insert(ORDERS, randomKey(PostgresRecordScreen.MAX_KEY_BYTES + 1, 3), "{}", 2);
    // Two bytes a character: 1 300 characters are exactly at the limit, 1 301 over it.
    ChangeRecord wideAtLimit = Records.insert(ORDERS, "é".repeat(1_300), "{}", 3);
    ChangeRecord wideOver = Records.update(ORDERS, "é".repeat(1_301), "{}", 4);

    assertNull(screen.refusal(atLimit));
    assertNull(screen.refusal(wideAtLimit));
    String refusal = screen.refusal(over);
    assertTrue(refusal.contains("2601 bytes") && refusal.contains("at most 2600"), refusal);
    assertTrue(screen.refusal(wideOver).contains("2602 bytes"), screen.refusal(wideOver));

    apply("key_limit", tables, atLimit);
    try (Connection c = DATABASE.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select length(\"_id\") from key_limit.\"shop.orders\"")) {
      assertTrue(rs.next(), "the key at the limit is stored");
      assertEquals(PostgresRecordScreen.MAX_KEY_BYTES, rs.getInt(1));
    }
  }

  @Test
  void aRecordWhoseTableHoldsAnotherCollectionIsRefusedAndTheFirstCollectionKeepsIt() throws Exception {
    Namespace first = new Namespace("shop", "orders");
    setUp("owned", first);
    // The screen of an all-collections mirror plans no tables: it finds the owner in the table's comment.
    PostgresRecordScreen screen = new PostgresRecordScreen(DATABASE, "owned", List.of());
    Namespace second = new Namespace("other", "orders");
    ChangeRecord intruder = insert(second, "shop.orders", 1);

    String refusal = screen.refusal(intruder);

    assertTrue(refusal.contains("\"owned\".\"shop.orders\""), refusal);
    assertTrue(refusal.contains("already holds collection shop.orders"), refusal);
    assertNull(screen.refusal(Records.insert(first, "1", "{}", 2)));

    // A table nobody holds yet goes to the first collection met, in stream order.
    ChangeRecord newcomer = insert(new Namespace("a", "x"), "fresh", 3);
    ChangeRecord late = insert(new Namespace("b", "x"), "fresh", 4);
    assertNull(screen.refusal(newcomer));
    assertTrue(screen.refusal(late).contains("already holds collection a.x"), screen.refusal(late));
  }

  /** An insert of document {@code "1"} from {@code source} into {@code table}, whatever table its name gives. */
  private static ChangeRecord insert(Namespace source, String table, long n) {
    return ChangeRecord.builder().operation(io.mongocdc.decode.Operation.INSERT).source(source).table(table).key("1")
        .document("{}").position(Records.pos(n)).commitTime(Records.T0).sourceBytes(10).build();
  }
}
