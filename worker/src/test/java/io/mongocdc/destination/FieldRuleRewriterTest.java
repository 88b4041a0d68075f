package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.Namespace;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.TypedColumn;
import io.mongocdc.workflows.model.TypedColumnSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Field rules added to a mirror with rows (issue 32, item 4): once the rewrite is done, no row of
 * the state or history table written before the rules holds an old value, each holds what the
 * stream writes under the rules, and the rows written after the rules took effect are left as they
 * were (a hash is never hashed again).
 */
class FieldRuleRewriterTest {

  private static final Namespace USERS = new Namespace("app", "users");
  private static final HashKey KEY = HashKey.of("a key of the rewrite test, 32 b.", "test");
  private static TypedColumnTables tables;

  @BeforeAll
  static void database() {
    tables = new TypedColumnTables("field_rules");
  }

  @Test
  void aRewriteLeavesNoOldValueInTablesOrHistoryAndDoesNotHashTheRowsWrittenAfterTheRules() throws Exception {
    MirrorSettings plain = MirrorSettings.defaults()
        .withColumns(new TypedColumnSettings(Map.of("users", List.of(new TypedColumn("email", "text", "email"))), null))
        .apply(EditRequest.fromJson(Map.of("history", Map.of("users", true))));
    MirrorConfig before = TypedColumnTables.mirror("rewrite1", List.of("users"), plain);
    tables.destination().createTables(before);
    tables.stream(before, USERS, users(0, 40, 0));
    tables.stream(before, USERS, users(0, 20, 1)); // a second version of half: two history rows each
    String state = TableNaming.qualified("rewrite1", TableNaming.tableName(USERS));
    String history = TableNaming.qualified("rewrite1", TableNaming.historyTableName(TableNaming.tableName(USERS)));
    io.mongocdc.source.ResumeToken upTo = io.mongocdc.source.ResumeToken.of(tables.one(
        "select max(_position) from " + state));

    FieldRuleSettings rules = new FieldRuleSettings(Map.of("users",
        new FieldRules(List.of("address"), List.of("email"))));
    MirrorConfig after = before.withSettings(plain.withFieldRules(rules));
    MirrorRedaction redaction = MirrorRedaction.of(rules, KEY);
    // Written after the rules took effect: already under them.
    Map<String, BsonDocument> later = redacted(users(30, 40, 2), redaction);
    tables.stream(after, USERS, later);

    FieldRuleRewrite rewrite = FieldRuleRewrite.of(rules, io.mongocdc.workflows.model.Checkpoint.atOperationTime(0, 0));
    rewrite = rewrite.at("users", FieldRuleRewrite.TABLE, null, null, 0);
    FieldRuleRewrite first = rewrite;
    int calls = 0;
    while (!rewrite.done()) {
      rewrite = tables.destination().rewriteFieldRules(after, rewrite, null, upTo, redaction, () -> {});
      calls++;
    }
    assertEquals(1, calls, "90 rows fit one call");
    // The same call again, as a retry after a crash that lost its answer: nothing is rewritten twice.
    FieldRuleRewrite retried = tables.destination().rewriteFieldRules(after, first, null, upTo, redaction, () -> {});
    assertTrue(retried.done(), retried.toString());

    assertEquals("", tables.rows("select _id, _position, doc, email from " + state + " where doc::text like '%example.com%'"
        + " or doc ? 'address' or email like '%example.com%'"));
    assertEquals("0", tables.one("select count(*) from " + history + " where doc::text like '%example.com%'"
        + " or doc::text like '%Rue%'"));
    assertEquals("70", tables.one("select count(*) from " + history));

    Map<String, BsonDocument> current = new LinkedHashMap<>(redacted(users(0, 20, 1), redaction));
    current.putAll(redacted(users(20, 30, 0), redaction));
    current.putAll(later);
    tables.assertAsStreamed(after, Map.of(USERS, current), "");
    String fresh = TableNaming.qualified("rewrite1_fresh", TableNaming.tableName(USERS));
    assertEquals("", tables.rows("(select _id, doc from " + state + " except select _id, doc from " + fresh + ")"
        + " union all (select _id, doc from " + fresh + " except select _id, doc from " + state + ")"),
        "documents as the stream writes them under the rules");
    assertEquals(30 + 60, rewrite.rowsRewritten(), "u0-u29 in the table, the 60 history rows written before");
  }

  /**
   * Issue 47, finding 1: a batch cancelled (or failed) after some of its commits leaves rows past
   * the checkpoint, written before a rule added then. The rewrite up to the checkpoint never
   * reached them, and the batch's replay writes the same positions, which leave them as they are:
   * they kept their values. The rewrite past the checkpoint (which the workflow runs before any
   * batch) takes them, and only them, so no value is hashed twice.
   */
  @Test
  void theRowsACancelledBatchWrotePastTheCheckpointAreRewrittenOnceAndTheOthersNotTwice() throws Exception {
    MirrorSettings plain = MirrorSettings.defaults()
        .withColumns(new TypedColumnSettings(Map.of("users", List.of(new TypedColumn("email", "text", "email"))), null))
        .apply(EditRequest.fromJson(Map.of("history", Map.of("users", true))));
    MirrorConfig before = TypedColumnTables.mirror("rewrite3", List.of("users"), plain);
    tables.destination().createTables(before);
    tables.stream(before, USERS, users(0, 40, 0));
    String state = TableNaming.qualified("rewrite3", TableNaming.tableName(USERS));
    String history = TableNaming.qualified("rewrite3", TableNaming.historyTableName(TableNaming.tableName(USERS)));
    io.mongocdc.source.ResumeToken checkpoint = io.mongocdc.source.ResumeToken.of(tables.one(
        "select max(_position) from " + state));
    // The cancelled batch: its first commit, past the checkpoint, before the rules.
    tables.stream(before, USERS, users(0, 10, 1));

    FieldRuleSettings rules = new FieldRuleSettings(Map.of("users",
        new FieldRules(List.of("address"), List.of("email"))));
    MirrorConfig after = before.withSettings(plain.withFieldRules(rules));
    MirrorRedaction redaction = MirrorRedaction.of(rules, KEY);
    io.mongocdc.workflows.model.Checkpoint at = io.mongocdc.workflows.model.Checkpoint.atOperationTime(0, 0);
    FieldRuleRewrite past = FieldRuleRewrite.pastCheckpoint(rules, at).at("users", FieldRuleRewrite.TABLE, null, null, 0);
    while (!past.done()) {
      past = tables.destination().rewriteFieldRules(after, past, checkpoint, null, redaction, () -> {});
    }
    assertEquals(10 + 10, past.rowsRewritten(), "u0-u9 in the table and their 10 history rows past the checkpoint");
    FieldRuleRewrite upTo = FieldRuleRewrite.of(rules, at).at("users", FieldRuleRewrite.TABLE, null, null, 0);
    while (!upTo.done()) {
      upTo = tables.destination().rewriteFieldRules(after, upTo, null, checkpoint, redaction, () -> {});
    }
    assertEquals(30 + 40, upTo.rowsRewritten(), "u10-u39 in the table and the 40 history rows up to the checkpoint");

    assertEquals("", tables.rows("select _id, _position, doc, email from " + state
        + " where doc::text like '%example.com%' or doc ? 'address' or email like '%example.com%'"));
    assertEquals("0", tables.one("select count(*) from " + history + " where doc::text like '%example.com%'"
        + " or doc::text like '%Rue%'"));
    Map<String, BsonDocument> current = new LinkedHashMap<>(redacted(users(0, 10, 1), redaction));
    current.putAll(redacted(users(10, 40, 0), redaction));
    tables.assertAsStreamed(after, Map.of(USERS, current), "");
    String fresh = TableNaming.qualified("rewrite3_fresh", TableNaming.tableName(USERS));
    assertEquals("", tables.rows("(select _id, doc, email from " + state + " except select _id, doc, email from "
        + fresh + ") union all (select _id, doc, email from " + fresh + " except select _id, doc, email from " + state
        + ")"), "every row hashed once, as the stream writes it under the rules");
  }

  /**
   * Issue 47, finding 4: a hash rule added over one that reaches the same values ({@code
   * customer.*} over {@code customer.email}) used to hash the rows' hashes again: the rewrite
   * applied the added rule to values that held HMAC(email) already, while the stream, where both
   * rules meet, hashes each value once. The rewrite leaves the values the rules before hashed as
   * they are, so every row, state and history, holds what the stream writes under the rules.
   */
  @Test
  void aHashRuleAddedOverAnOverlappingOneHashesEachValueOnceAsTheStreamDoes() throws Exception {
    FieldRuleSettings rulesBefore = new FieldRuleSettings(Map.of("users", new FieldRules(List.of(),
        List.of("customer.email"))));
    FieldRuleSettings rulesAfter = new FieldRuleSettings(Map.of("users", new FieldRules(List.of(),
        List.of("customer.email", "customer.*"))));
    MirrorSettings plain = MirrorSettings.defaults().apply(EditRequest.fromJson(Map.of("history", Map.of("users", true))));
    MirrorConfig before = TypedColumnTables.mirror("rewrite4", List.of("users"), plain.withFieldRules(rulesBefore));
    tables.destination().createTables(before);
    MirrorRedaction streamBefore = MirrorRedaction.of(rulesBefore, KEY);
    tables.stream(before, USERS, redacted(customers(0, 20, 0), streamBefore));
    tables.stream(before, USERS, redacted(customers(0, 10, 1), streamBefore));
    String state = TableNaming.qualified("rewrite4", TableNaming.tableName(USERS));
    String history = TableNaming.qualified("rewrite4", TableNaming.historyTableName(TableNaming.tableName(USERS)));
    io.mongocdc.source.ResumeToken upTo = io.mongocdc.source.ResumeToken.of(tables.one(
        "select max(_position) from " + state));

    MirrorConfig after = before.withSettings(plain.withFieldRules(rulesAfter));
    FieldRuleSettings added = rulesAfter.addedSince(rulesBefore);
    FieldRuleRewrite rewrite = FieldRuleRewrite.of(added, io.mongocdc.workflows.model.Checkpoint.atOperationTime(0, 0),
        rulesBefore.hashedPaths()).at("users", FieldRuleRewrite.TABLE, null, null, 0);
    MirrorRedaction redaction = MirrorRedaction.of(added, KEY, rewrite.hashedAlready());
    while (!rewrite.done()) {
      rewrite = tables.destination().rewriteFieldRules(after, rewrite, null, upTo, redaction, () -> {});
    }

    MirrorRedaction streamAfter = MirrorRedaction.of(rulesAfter, KEY);
    Map<String, BsonDocument> current = new LinkedHashMap<>(redacted(customers(0, 10, 1), streamAfter));
    current.putAll(redacted(customers(10, 20, 0), streamAfter));
    tables.assertAsStreamed(after, Map.of(USERS, current), "");
    String fresh = TableNaming.qualified("rewrite4_fresh", TableNaming.tableName(USERS));
    assertEquals("", tables.rows("(select _id, doc from " + state + " except select _id, doc from " + fresh + ")"
        + " union all (select _id, doc from " + fresh + " except select _id, doc from " + state + ")"),
        "documents as the stream writes them under both rules: each value hashed once");
    String onceHashedEmails = tables.rows("select distinct doc->'customer'->>'email' from " + fresh + " order by 1");
    assertEquals(onceHashedEmails, tables.rows("select distinct doc->'customer'->>'email' from " + history
        + " order by 1"), "the history's emails are hashed once too");
    assertEquals("0", tables.one("select count(*) from " + history + " where doc::text like '%example.com%'"
        + " or doc::text like '%+41%'"));
  }

  /**
   * Issue 47, finding 11: the stream hashes a value from its BSON, the rewrite from the row's JSON,
   * which jsonb keeps without -0 (it gives 0.0 back) and with NUL as U+2400. Both hash the value as
   * the JSON gives it back, so the two paths hash {@code -0.0} and text with NUL alike, at the top
   * and inside a hashed sub-document.
   */
  @Test
  void negativeZeroAndTextWithNulHashAlikeFromTheStreamAndFromTheRewrite() throws Exception {
    MirrorSettings plain = MirrorSettings.defaults();
    MirrorConfig before = TypedColumnTables.mirror("rewrite5", List.of("users"), plain);
    tables.destination().createTables(before);
    Map<String, BsonDocument> documents = new LinkedHashMap<>();
    for (int i = 0; i < 4; i++) {
      documents.put("u" + i, new BsonDocument("_id", new BsonString("u" + i))
          .append("score", new org.bson.BsonDouble(-0.0))
          .append("note", new BsonString("a\0b" + i))
          .append("nested", new BsonDocument("z", new org.bson.BsonDouble(-0.0)).append("s", new BsonString("x\0y"))));
    }
    tables.stream(before, USERS, documents);
    String state = TableNaming.qualified("rewrite5", TableNaming.tableName(USERS));
    io.mongocdc.source.ResumeToken upTo = io.mongocdc.source.ResumeToken.of(tables.one(
        "select max(_position) from " + state));

    FieldRuleSettings rules = new FieldRuleSettings(Map.of("users", new FieldRules(List.of(),
        List.of("score", "note", "nested"))));
    MirrorConfig after = before.withSettings(plain.withFieldRules(rules));
    FieldRuleRewrite rewrite = FieldRuleRewrite.of(rules, io.mongocdc.workflows.model.Checkpoint.atOperationTime(0, 0))
        .at("users", FieldRuleRewrite.TABLE, null, null, 0);
    MirrorRedaction redaction = MirrorRedaction.of(rules, KEY);
    while (!rewrite.done()) {
      rewrite = tables.destination().rewriteFieldRules(after, rewrite, null, upTo, redaction, () -> {});
    }

    tables.assertAsStreamed(after, Map.of(USERS, redacted(documents, redaction)), "");
    String fresh = TableNaming.qualified("rewrite5_fresh", TableNaming.tableName(USERS));
    assertEquals("", tables.rows("(select _id, doc from " + state + " except select _id, doc from " + fresh + ")"
        + " union all (select _id, doc from " + fresh + " except select _id, doc from " + state + ")"),
        "the rewrite hashes -0.0 and text with NUL as the stream does");
  }

  @Test
  void aRewriteGoesOnWhereTheLastSliceStopped() throws Exception {
    MirrorConfig before = TypedColumnTables.mirror("rewrite2", List.of("users"), MirrorSettings.defaults()
        .apply(EditRequest.fromJson(Map.of("history", Map.of("users", true)))));
    tables.destination().createTables(before);
    tables.stream(before, USERS, users(0, 10, 0));
    FieldRuleSettings rules = new FieldRuleSettings(Map.of("users", new FieldRules(List.of("email"), List.of())));
    MirrorRedaction redaction = MirrorRedaction.of(rules, null);
    String state = TableNaming.qualified("rewrite2", TableNaming.tableName(USERS));

    // As a call that stopped after u4 of the state table left it.
    FieldRuleRewrite stopped = FieldRuleRewrite.of(rules, io.mongocdc.workflows.model.Checkpoint.atOperationTime(0, 0))
        .at("users", FieldRuleRewrite.TABLE, null, "u4", 5);
    FieldRuleRewrite done = tables.destination().rewriteFieldRules(before.withSettings(before.settings()
        .withFieldRules(rules)), stopped, null, Records.pos(1_000_000), redaction, () -> {});

    assertTrue(done.done(), done.toString());
    assertEquals("5", tables.one("select count(*) from " + state + " where doc ? 'email'"), "u0-u4 were not read again");
    assertEquals(5 + 5 + 10, done.rowsRewritten());
  }

  /** Users {@code u<from>..u<to - 1>}, version {@code version}, with an email and an address. */
  private static Map<String, BsonDocument> users(int from, int to, int version) {
    Map<String, BsonDocument> users = new LinkedHashMap<>();
    for (int i = from; i < to; i++) {
      users.put("u" + i, new BsonDocument("_id", new BsonString("u" + i))
          .append("email", new BsonString("user" + (i % 7) + "@example.com"))
          .append("address", new BsonDocument("street", new BsonString(i + " Rue de la Paix")))
          .append("version", new BsonInt32(version)));
    }
    return users;
  }

  /** Users {@code u<from>..u<to - 1>}, version {@code version}, with a customer sub-document. */
  private static Map<String, BsonDocument> customers(int from, int to, int version) {
    Map<String, BsonDocument> users = new LinkedHashMap<>();
    for (int i = from; i < to; i++) {
      users.put("u" + i, new BsonDocument("_id", new BsonString("u" + i))
          .append("customer", new BsonDocument("email", new BsonString("user" + (i % 7) + "@example.com"))
              .append("phone", new BsonString("+41 " + (i % 5))).append("name", new BsonString("n" + i)))
          .append("version", new BsonInt32(version)));
    }
    return users;
  }

  private static Map<String, BsonDocument> redacted(Map<String, BsonDocument> documents, MirrorRedaction redaction) {
    Map<String, BsonDocument> out = new LinkedHashMap<>();
    documents.forEach((key, document) -> out.put(key, redaction.document("users",
        new RawBsonDocument(document, new BsonDocumentCodec())).decode(new BsonDocumentCodec())));
    return out;
  }
}
