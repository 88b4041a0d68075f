package io.mongocdc.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
    assertEquals("batch 3 ended at resume token 82654A1B", Redaction.redact("batch 3 ended at resume token 82654A1B"));
    assertNull(Redaction.redact(null));
  }

  @Test
  void redactsInsideLongerMessages() {
    assertEquals("cannot connect to mongodb://u:***@h:1 (refused); retrying mongodb://u:***@h:2",
        Redaction.redact("cannot connect to mongodb://u:a@h:1 (refused); retrying mongodb://u:b:c@h:2"));
  }

  /** Every form a password was seen written in; each row: what the user wrote, what may be shown. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      raw @ in the password        | mongodb://cdc:p@ss@db1/app                      | mongodb://cdc:***@db1/app
      two raw @ in the password    | mongodb://cdc:p@s@s@db1:27017/?replicaSet=rs0   | mongodb://cdc:***@db1:27017/?replicaSet=rs0
      @ in the user                | mongodb://cdc@corp:secret@db1/                  | mongodb://cdc@corp:***@db1/
      space in the password        | postgresql://admin:my s3cr3t@pg:5432/catalog    | postgresql://admin:***@pg:5432/catalog
      percent-encoded password     | postgresql://admin:p%40ss%20w@pg/catalog        | postgresql://admin:***@pg/catalog
      URI at the end of a line     | could not reach postgresql://a:b@pg             | could not reach postgresql://a:***@pg
      ; in a JDBC password         | jdbc:postgresql://pg/c?user=u&password=s3;cr3t  | jdbc:postgresql://pg/c?user=u&password=***
      libpq keyword                | host=pg user=cdc password=s3cr3t dbname=c       | host=pg user=cdc password=*** dbname=c
      libpq quoted with a space    | host=pg password='my s3cr3t' dbname=c           | host=pg password=*** dbname=c
      libpq spaces around =        | host=pg password = s3cr3t dbname=c              | host=pg password = *** dbname=c
      pwd and secret               | Server=x;pwd=hunter2 secret=abc                 | Server=x;pwd=*** secret=***
      upper case                   | jdbc:postgresql://pg/c?PASSWORD=Hunter2         | jdbc:postgresql://pg/c?PASSWORD=***
      / in the password            | postgresql://u:TOP/SECRET3@pg:5432/db           | postgresql://u:***@pg:5432/db
      / and @ in the password      | postgresql://u:a/b@c@pg/db?sslmode=require      | postgresql://u:***@pg/db?sslmode=require
      quoted by picocli            | Unknown options: 'postgresql://u:a/b@pg/c', 'x' | Unknown options: 'postgresql://u:***@pg/c', 'x'
      sslpassword                  | jdbc:postgresql://pg/c?user=u&sslpassword=TOP2  | jdbc:postgresql://pg/c?user=u&sslpassword=***
      sslpassword after password   | jdbc:postgresql://pg/c?password=a&sslpassword=b | jdbc:postgresql://pg/c?password=***&sslpassword=***
      TLS key file password        | mongodb://h/?tls=true&tlsCertificateKeyFilePassword=k1&w=1 | mongodb://h/?tls=true&tlsCertificateKeyFilePassword=***&w=1
      AWS session token            | mongodb://h/?authMechanismProperties=AWS_SESSION_TOKEN:t0k,X:y | mongodb://h/?authMechanismProperties=AWS_SESSION_TOKEN:***,X:y
      AWS keys as keywords         | aws_secret_access_key=k2 aws_session_token=t3   | aws_secret_access_key=*** aws_session_token=***
      client secret                | client_secret=abc&scope=x                       | client_secret=***&scope=x
      """)
  void hidesThePasswordWhateverFormItIsWrittenIn(String form, String written, String shown) {
    assertEquals(shown, Redaction.redact(written));
  }
}
