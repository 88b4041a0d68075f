package io.mongocdc.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sample of fuzz documents (NUL characters, ill-formed UTF-8, extreme numbers, every type)
 * goes into a real PostgreSQL jsonb column in both modes, and their key texts into a text
 * column: PostgreSQL accepts every one.
 */
class BsonJsonPostgresJsonbTest {

  private static DataSource database;

  @BeforeAll
  static void database() {
    database = EmbeddedPostgresSupport.newDatabase("jsonb_sample");
  }

  @Test
  void jsonbAcceptsASampleOfFuzzDocumentsInBothModes() throws Exception {
    TranscodingJsonRenderer relaxed = TranscodingJsonRenderer.relaxed();
    TranscodingJsonRenderer simplified = TranscodingJsonRenderer.simplified();
    IdKeyRenderer keys = new IdKeyRenderer();
    RandomBsonDocuments documents = new RandomBsonDocuments(BsonJsonFuzzTest.SEED + 1, true, true);
    int rows = 400;
    try (Connection db = database.getConnection()) {
      try (Statement ddl = db.createStatement()) {
        ddl.execute("create table sample (n int primary key, relaxed jsonb not null, simplified jsonb not null)");
        ddl.execute("create table sample_keys (key text not null)");
      }
      try (PreparedStatement docs = db.prepareStatement("insert into sample values (?, ?::jsonb, ?::jsonb)");
          PreparedStatement keyRows = db.prepareStatement("insert into sample_keys values (?)")) {
        for (int n = 0; n < rows; n++) {
          RawBsonDocument document = new RawBsonDocument(documents.next());
          docs.setInt(1, n);
          docs.setString(2, relaxed.render(document));
          docs.setString(3, simplified.render(document));
          docs.addBatch();
          // Every top-level value stands in for an _id, to check key text is storable too.
          for (BsonValue value : document.values()) {
            keyRows.setString(1, keys.render(value));
            keyRows.addBatch();
          }
        }
        docs.executeBatch();
        keyRows.executeBatch();
      }
      try (Statement query = db.createStatement();
          ResultSet count = query.executeQuery("select count(*) from sample")) {
        count.next();
        assertEquals(rows, count.getInt(1));
      }
    }
  }

  @Test
  void nulAndIllFormedUtf8ArriveAsDocumented() throws Exception {
    RawBsonWriter w = new RawBsonWriter();
    int mark = w.startDocument();
    w.name(0x02, "nul").string(new byte[] {'a', 0, 'b'});
    w.name(0x02, "bad").string(new byte[] {'a', (byte) 0xff, 'b'});
    w.name(0x01, "tiny").int64(Double.doubleToLongBits(Double.MIN_VALUE));
    w.name(0x01, "huge").int64(Double.doubleToLongBits(-Double.MAX_VALUE));
    w.name(0x12, "long").int64(Long.MIN_VALUE);
    w.endDocument(mark);
    String json = TranscodingJsonRenderer.relaxed().render(new RawBsonDocument(w.toByteArray()));
    try (Connection db = database.getConnection();
        PreparedStatement query = db.prepareStatement(
            "select d->>'nul', d->>'bad', (d->>'tiny')::float8, (d->>'huge')::float8, d->>'long' from (select ?::jsonb d) t")) {
      query.setString(1, json);
      try (ResultSet row = query.executeQuery()) {
        row.next();
        assertEquals("a\u2400b", row.getString(1));
        assertEquals("a\uFFFDb", row.getString(2));
        assertEquals(Double.MIN_VALUE, row.getDouble(3));
        assertEquals(-Double.MAX_VALUE, row.getDouble(4));
        assertEquals(Long.toString(Long.MIN_VALUE), row.getString(5));
      }
    }
  }
}
