package io.mongocdc.source.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class SourceChecksTest {

  @Test
  void recognisesTheTopologyFromHello() {
    assertEquals("replica set rs0", SourceChecks.topology(BsonDocument.parse(
        "{isWritablePrimary: true, setName: 'rs0', hosts: ['db1:27017'], ok: 1}")));
    assertEquals("sharded cluster", SourceChecks.topology(BsonDocument.parse(
        "{isWritablePrimary: true, msg: 'isdbgrid', ok: 1}")));
    String standalone = SourceChecks.topology(BsonDocument.parse("{isWritablePrimary: true, ok: 1}"));
    assertEquals("standalone", standalone);
    assertTrue(SourceChecks.topologyProblem(standalone).orElseThrow().contains("rs.initiate()"));
    assertEquals(Optional.empty(), SourceChecks.topologyProblem("replica set rs0"));
  }

  @Test
  void requiresMongoDb5OrNewer() {
    assertEquals(Optional.empty(), SourceChecks.versionProblem("5.0.0"));
    assertEquals(Optional.empty(), SourceChecks.versionProblem("8.0.4"));
    assertEquals("MongoDB 4.4.29 is too old: mongo-cdc needs 5.0 or newer",
        SourceChecks.versionProblem("4.4.29").orElseThrow());
  }

  @Test
  void findsMissingPrivileges() {
    BsonDocument status = BsonDocument.parse("""
        {authInfo: {
          authenticatedUsers: [{user: 'cdc', db: 'admin'}],
          authenticatedUserRoles: [{role: 'read', db: 'shop'}],
          authenticatedUserPrivileges: [
            {resource: {db: 'shop', collection: ''}, actions: ['find', 'changeStream', 'listCollections']},
            {resource: {db: 'crm', collection: 'users'}, actions: ['find']}
          ]}, ok: 1}""");

    assertEquals(List.of("changeStream on crm.users", "find on crm.leads", "changeStream on crm.leads"),
        SourceChecks.missingPrivileges(status, List.of("shop.orders", "crm.users", "crm.leads")));
  }

  @Test
  void noAccessControlMeansNoMissingPrivilege() {
    BsonDocument status = BsonDocument.parse(
        "{authInfo: {authenticatedUsers: [], authenticatedUserRoles: []}, ok: 1}");
    assertEquals(List.of(), SourceChecks.missingPrivileges(status, List.of("shop.orders")));
  }

  @Test
  void anyResourceCoversEverything() {
    BsonDocument status = BsonDocument.parse("""
        {authInfo: {authenticatedUsers: [{user: 'root', db: 'admin'}],
          authenticatedUserPrivileges: [{resource: {anyResource: true}, actions: ['find', 'changeStream']}]}}""");
    assertEquals(List.of(), SourceChecks.missingPrivileges(status, List.of("shop.orders")));
  }

  @Test
  void oplogWindowWarnsWellBeforeHistoryIsLost() {
    OplogWindow window = new OplogWindow(new BsonTimestamp(1_000_000, 1), new BsonTimestamp(1_000_000 + 86_400, 1));

    assertEquals(Duration.ofHours(24), window.length());
    assertEquals(Duration.ofHours(20), window.headroom(new BsonTimestamp(1_000_000 + 72_000, 0)));
    assertFalse(window.atRisk(new BsonTimestamp(1_000_000 + 72_000, 0)));
    assertTrue(window.atRisk(new BsonTimestamp(1_000_000 + 3_600, 0)));
    assertTrue(window.describe(new BsonTimestamp(1_000_000 + 3_600, 0)).contains("WARNING"));
    assertTrue(window.describe(new BsonTimestamp(999_000, 0)).contains("history is gone"));
  }

  @Test
  void requiredPreImagesNameTheCollectionsWithoutThemAndTheCommand() {
    Map<String, BsonDocument> options = Map.of(
        "shop.orders", BsonDocument.parse("{changeStreamPreAndPostImages: {enabled: true}}"),
        "shop.items", new BsonDocument(),
        "shop.users", BsonDocument.parse("{changeStreamPreAndPostImages: {enabled: false}}"));
    List<String> problems = new java.util.ArrayList<>();
    List<String> warnings = new java.util.ArrayList<>();

    SourceChecks.checkPreImages(PreImageMode.REQUIRED, "7.0.2", List.of("shop.orders", "shop.items", "shop.users"),
        options, problems, warnings);

    assertEquals(List.of("fullDocumentBeforeChange=required: changeStreamPreAndPostImages is not enabled on"
        + " shop.items, shop.users; enable it with"
        + " db.getSiblingDB(\"shop\").runCommand({collMod: \"items\", changeStreamPreAndPostImages: {enabled: true}})"
        + " and db.getSiblingDB(\"shop\").runCommand({collMod: \"users\", changeStreamPreAndPostImages: {enabled: true}})"
        + " (or use fullDocumentBeforeChange=whenAvailable)"), problems);
    assertEquals(List.of(), warnings);
  }

  @Test
  void preImagesWhenAvailableOnlyWarnAndOffChecksNothing() {
    Map<String, BsonDocument> options = Map.of("shop.items", new BsonDocument());
    List<String> problems = new java.util.ArrayList<>();
    List<String> warnings = new java.util.ArrayList<>();

    SourceChecks.checkPreImages(PreImageMode.WHEN_AVAILABLE, "6.0.1", List.of("shop.items"), options, problems,
        warnings);
    SourceChecks.checkPreImages(PreImageMode.OFF, "5.0.1", List.of("shop.items"), options, problems, warnings);

    assertEquals(List.of(), problems);
    assertEquals(1, warnings.size());
    assertTrue(warnings.get(0).startsWith("fullDocumentBeforeChange=whenAvailable: changeStreamPreAndPostImages is"
        + " not enabled on shop.items; enable it with db.getSiblingDB(\"shop\").runCommand({collMod: \"items\","),
        warnings.get(0));
  }

  @Test
  void preImagesNeedMongoDb6() {
    List<String> problems = new java.util.ArrayList<>();
    SourceChecks.checkPreImages(PreImageMode.WHEN_AVAILABLE, "5.0.9", List.of("shop.items"), Map.of(), problems,
        new java.util.ArrayList<>());
    assertEquals(List.of("fullDocumentBeforeChange=whenAvailable needs MongoDB 6.0 or newer, the server is 5.0.9"),
        problems);
  }
}
