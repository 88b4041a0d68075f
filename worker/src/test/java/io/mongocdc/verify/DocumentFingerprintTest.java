package io.mongocdc.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.decode.JsonbSanitizer;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/** A document's fingerprint is the same on both sides exactly when jsonb calls the two equal. */
class DocumentFingerprintTest {

  @Test
  void whatJsonbDoesNotKeepDoesNotChangeTheFingerprint() {
    long a = DocumentFingerprint.of("1", "{\"a\": 1.0, \"b\": [1, {\"y\": 2, \"x\": 3}]}");
    assertEquals(a, DocumentFingerprint.of("1", "{\"b\":[1,{\"x\":3,\"y\":2}],\"a\":1.00}"));
    assertEquals(a, DocumentFingerprint.of("1", "{\"a\": 1, \"a\": 1.0, \"b\": [1, {\"y\": 2, \"x\": 3}]}"),
        "a repeated field keeps its last value");
  }

  @Test
  void valuesKeysAndOrderOfArraysDo() {
    long a = DocumentFingerprint.of("1", "{\"a\": [1, 2]}");
    assertNotEquals(a, DocumentFingerprint.of("1", "{\"a\": [2, 1]}"));
    assertNotEquals(a, DocumentFingerprint.of("2", "{\"a\": [1, 2]}"));
    assertNotEquals(a, DocumentFingerprint.of("1", "{\"a\": [1, \"2\"]}"));
    assertNotEquals(a, DocumentFingerprint.of("1", null));
    assertNotEquals(DocumentFingerprint.of("1", "{\"a\": 0.1}"), DocumentFingerprint.of("1", "{\"a\": 0.10000001}"));
  }

  @Test
  void aDocumentAndItsJsonbTextHaveOneFingerprint() throws Exception {
    DataSource data = EmbeddedPostgresSupport.newDatabase("fingerprint");
    String[] documents = {
        "{\"_id\": {\"$oid\": \"57e193d7a9cc81b4027498b5\"}, \"n\": 1.5e300, \"s\": \"caf\\u00e9 \\\"q\\\" \\u0000\","
            + " \"d\": {\"$date\": \"2020-01-01T00:00:00Z\"}, \"neg\": -0.0, \"big\": 9223372036854775807,"
            + " \"nested\": {\"z\": [true, false, null], \"a\": {\"$numberDecimal\": \"1.50\"}}}",
        "{\"_id\": \"k\", \"x\": 1e-7, \"e\": \"\", \"emoji\": \"\\ud83d\\ude00\"}"};
    try (Connection c = data.getConnection(); PreparedStatement st = c.prepareStatement("select ?::jsonb::text")) {
      for (String json : documents) {
        String rendered = JsonbSanitizer.sanitize(TranscodingJsonRenderer.relaxed().render(
            RawBsonDocument.parse(BsonDocument.parse(json).toJson())));
        st.setString(1, rendered);
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          assertEquals(DocumentFingerprint.of("k", rendered), DocumentFingerprint.of("k", rs.getString(1)),
              rendered + " vs " + rs.getString(1));
        }
      }
    }
  }
}
