package io.mongocdc.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class RedactionTest {

  @Test
  void hidesPasswordsInConnectionStrings() {
    assertEquals("mongodb://cdc:***@db1:27017,db2:27017/?replicaSet=rs0",
        Redaction.redact("mongodb://cdc:s3cr3t@db1:27017,db2:27017/?replicaSet=rs0"));
    assertEquals("mongodb+srv://cdc:***@cluster0.example.net/app",
        Redaction.redact("mongodb+srv://cdc:p%40ss@cluster0.example.net/app"));
    assertEquals("postgresql://admin:***@pg:5432/catalog",
        Redaction.redact("postgresql://admin:hunter2@pg:5432/catalog"));
    assertEquals("jdbc:postgresql://pg/catalog?user=cdc&password=***&ssl=true",
        Redaction.redact("jdbc:postgresql://pg/catalog?user=cdc&password=topsecret&ssl=true"));
  }

  @Test
  void leavesTextWithoutSecretsAlone() {
    assertEquals("mongodb://db1:27017/?replicaSet=rs0", Redaction.redact("mongodb://db1:27017/?replicaSet=rs0"));
    assertEquals("mongodb://cdc@db1/", Redaction.redact("mongodb://cdc@db1/"));
    assertEquals("Timed out after 30000 ms", Redaction.redact("Timed out after 30000 ms"));
    assertNull(Redaction.redact(null));
  }

  @Test
  void redactsInsideLongerMessages() {
    assertEquals("cannot connect to mongodb://u:***@h:1 (refused); retrying mongodb://u:***@h:2",
        Redaction.redact("cannot connect to mongodb://u:a@h:1 (refused); retrying mongodb://u:b:c@h:2"));
  }
}
