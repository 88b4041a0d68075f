package io.mongocdc.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.devtools.generator.ResumeTokens;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class ResumeTokenTest {

  /** A token as a MongoDB 7.0 server returned it for an insert. */
  private static final String SERVER_TOKEN =
      "8265A1B2C3000000042B042C0100296E5A1004A5093ABB38FE4B9EA67F01BB1A96D812463C5F6964003C5F5F5F78000004";

  @Test
  void readsTheClusterTimeAtTheStartOfTheToken() {
    ResumeToken token = ResumeToken.of(SERVER_TOKEN);
    assertEquals(new BsonTimestamp(0x65A1B2C3, 4), token.clusterTime());
  }

  @Test
  void ordersTokensByStreamOrder() {
    UUID collection = UUID.randomUUID();
    ResumeToken first = ResumeTokens.event(new BsonTimestamp(100, 1), 0, collection, new BsonInt32(9));
    ResumeToken sameTransactionLater = ResumeTokens.event(new BsonTimestamp(100, 1), 1, collection, new BsonInt32(1));
    ResumeToken much = ResumeTokens.event(new BsonTimestamp(100, 1), 300, collection, new BsonInt32(1));
    ResumeToken laterTime = ResumeTokens.event(new BsonTimestamp(100, 2), 0, collection, new org.bson.BsonObjectId(new ObjectId()));
    ResumeToken highWater = ResumeTokens.highWaterMark(new BsonTimestamp(101, 0));

    assertTrue(sameTransactionLater.isAfter(first));
    assertTrue(much.isAfter(sameTransactionLater));
    assertTrue(laterTime.isAfter(much));
    assertTrue(highWater.isAfter(laterTime));
  }

  @Test
  void lowerCaseHexIsTheSameToken() {
    assertEquals(ResumeToken.of(SERVER_TOKEN), ResumeToken.of(SERVER_TOKEN.toLowerCase()));
  }

  @Test
  void rejectsTextThatIsNotAToken() {
    assertEquals("resume token is empty",
        assertThrows(IllegalArgumentException.class, () -> ResumeToken.of("")).getMessage());
    assertEquals("resume token is not hex (odd length 3): 82A",
        assertThrows(IllegalArgumentException.class, () -> ResumeToken.of("82A")).getMessage());
    assertEquals("resume token is not hex (character 'z' at 2): 82zz",
        assertThrows(IllegalArgumentException.class, () -> ResumeToken.of("82zz")).getMessage());
    assertEquals("resume token document has no string _data field: {\"_data\": 5}",
        assertThrows(IllegalArgumentException.class,
            () -> ResumeToken.fromDocument(new BsonDocument("_data", new BsonInt32(5)))).getMessage());
  }

  @Test
  void aTokenWithoutClusterTimeSaysSo() {
    ResumeToken odd = ResumeToken.of("2B04");
    assertEquals("resume token does not start with a cluster time: 2B04",
        assertThrows(IllegalStateException.class, odd::clusterTime).getMessage());
  }

  @Test
  void roundTripsThroughItsDocument() {
    ResumeToken token = ResumeToken.of(SERVER_TOKEN);
    assertEquals(new BsonDocument("_data", new BsonString(SERVER_TOKEN)), token.toDocument());
    assertEquals(token, ResumeToken.fromDocument(token.toDocument()));
  }

  @Test
  void readsTheTokenOfARawEventAndSaysWhatIsMissing() {
    RawBsonDocument event = RawBsonDocument.parse("{_id: {_data: '" + SERVER_TOKEN + "'}, operationType: 'insert'}");
    assertEquals(ResumeToken.of(SERVER_TOKEN), ResumeToken.ofEvent(event));

    assertEquals("the event has no _id", assertThrows(IllegalArgumentException.class,
        () -> ResumeToken.ofEvent(RawBsonDocument.parse("{operationType: 'insert'}"))).getMessage());
    assertEquals("the event's _id is a STRING, not a resume token document", assertThrows(IllegalArgumentException.class,
        () -> ResumeToken.ofEvent(RawBsonDocument.parse("{_id: 'x'}"))).getMessage());
    assertEquals("the event's _id has no string _data field", assertThrows(IllegalArgumentException.class,
        () -> ResumeToken.ofEvent(RawBsonDocument.parse("{_id: {_data: 5}}"))).getMessage());
  }
}
