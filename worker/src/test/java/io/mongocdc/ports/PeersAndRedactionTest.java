package io.mongocdc.ports;

import io.mongocdc.activities.Checkpoints;
import io.mongocdc.activities.FailureClassifier;
import io.mongocdc.activities.Fixtures;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.secrets.Redaction;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeersAndRedactionTest {

  @TempDir Path directory;

  @Test
  void theEnvironmentOverridesThePeersFile() throws Exception {
    Path file = directory.resolve("peers.properties");
    Files.writeString(file, "orders-mongo.uri=mongodb://db1/\nwarehouse-pg.uri=postgresql://pg1/wh\n");
    ConfiguredPeerRegistry peers = ConfiguredPeerRegistry.load(file,
        Map.of("MONGO_CDC_PEER_ORDERS_MONGO", Fixtures.SOURCE_URI));

    assertEquals(Fixtures.SOURCE_URI, peers.resolve("orders-mongo").connectionString());
    assertEquals("postgresql://pg1/wh", peers.resolve("warehouse-pg").connectionString());
    UnknownPeerException unknown = assertThrows(UnknownPeerException.class, () -> peers.resolve("nobody"));
    assertTrue(unknown.getMessage().contains("MONGO_CDC_PEER_NOBODY"), unknown.getMessage());
  }

  @Test
  void theFieldHashKeyComesFromThePeersFileOrTheEnvironmentAndAShortOneIsRefusedUnquoted() throws Exception {
    Path file = directory.resolve("keyed.properties");
    Files.writeString(file, "orders-mongo.uri=mongodb://db1/\nfieldHashKey=the key in the peers file, 32 b.\n");
    io.mongocdc.privacy.HashKey inFile = io.mongocdc.privacy.HashKey.of("the key in the peers file, 32 b.", "t");
    io.mongocdc.privacy.HashKey inEnvironment = io.mongocdc.privacy.HashKey.of("the key in the environment, 32 b", "t");

    assertEquals(inFile.fingerprint(), ConfiguredPeerRegistry.load(file, Map.of()).fieldHashKey().fingerprint());
    assertEquals(inEnvironment.fingerprint(), ConfiguredPeerRegistry.load(file,
        Map.of("MONGO_CDC_FIELD_HASH_KEY", "the key in the environment, 32 b")).fieldHashKey().fingerprint());
    assertEquals(null, ConfiguredPeerRegistry.load(null, Map.of()).fieldHashKey());
    InvalidMirrorConfigurationException tooShort = assertThrows(InvalidMirrorConfigurationException.class,
        () -> ConfiguredPeerRegistry.load(null, Map.of("MONGO_CDC_FIELD_HASH_KEY", "canary")));
    assertTrue(tooShort.getMessage().contains("MONGO_CDC_FIELD_HASH_KEY holds 6 bytes"), tooShort.getMessage());
    assertFalse(tooShort.getMessage().contains("canary"), tooShort.getMessage());
  }

  @Test
  void aPeerNeverPrintsItsPassword() {
    Peer peer = new Peer("orders-mongo", Fixtures.SOURCE_URI);
    assertFalse(peer.toString().contains(Fixtures.SOURCE_PASSWORD), peer.toString());
  }

  @Test
  void redactsUserInfoPasswordsAndPasswordParameters() {
    assertEquals("mongodb://cdc:***@db1:27017/?replicaSet=rs0", Redaction.redact("mongodb://cdc:pw@db1:27017/?replicaSet=rs0"));
    assertEquals("jdbc:postgresql://pg1/db?user=cdc&password=***&ssl=true",
        Redaction.redact("jdbc:postgresql://pg1/db?user=cdc&password=hunter2&ssl=true"));
    assertEquals("no secrets here", Redaction.redact("no secrets here"));
  }

  @Test
  void aDestinationThatRefusesTheCredentialsIsAnAuthenticationFailure() {
    ApplicationFailure failure = FailureClassifier.classify(ActivityNames.COMMIT_CHECKPOINT,
        new SQLException("FATAL: password authentication failed for user \"cdc\"", "28P01"));
    assertEquals(FailureTypes.AUTHENTICATION_FAILED, failure.getType());
    assertTrue(failure.isNonRetryable());
  }

  @Test
  void anUnavailableDestinationIsRetryable() {
    ApplicationFailure failure = FailureClassifier.classify(ActivityNames.COMMIT_CHECKPOINT,
        new SQLException("Connection to pg1:5432 refused", "08001"));
    assertEquals(FailureTypes.TRANSIENT, failure.getType());
    assertFalse(failure.isNonRetryable());
  }

  @Test
  void checkpointsOrderAsTheStreamDoes() {
    ChangeEvents events = new ChangeEvents();
    var first = events.insert(Fixtures.ORDERS, new BsonDocument("_id", new BsonInt32(1)));
    var second = events.insert(Fixtures.ORDERS, new BsonDocument("_id", new BsonInt32(2)));
    StreamPosition a = StreamPosition.after(io.mongocdc.source.ResumeToken.fromDocument(first.getDocument("_id")));
    StreamPosition b = StreamPosition.after(io.mongocdc.source.ResumeToken.fromDocument(second.getDocument("_id")));
    StreamPosition atTime = StreamPosition.atOperationTime(a.clusterTime());

    assertTrue(b.isAfter(a));
    assertFalse(a.isAfter(b));
    assertTrue(a.isAfter(atTime), "after an event at T is later than at T, inclusive");
    assertFalse(atTime.isAfter(a));
    assertEquals(a, Checkpoints.toPosition(Checkpoints.of(a)), "the workflow's checkpoint converts back to the position");
    assertEquals(atTime, Checkpoints.toPosition(Checkpoints.of(atTime)));
  }
}
