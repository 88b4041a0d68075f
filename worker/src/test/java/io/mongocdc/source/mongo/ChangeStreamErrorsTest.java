package io.mongocdc.source.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoCredential;
import com.mongodb.MongoQueryException;
import com.mongodb.MongoSecurityException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.OversizedEventException;
import io.mongocdc.source.ResumeTokenNotFoundException;
import io.mongocdc.source.SourceAccessDeniedException;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** Classification of the server's own error replies (as a 6.0-8.0 server sends them). */
class ChangeStreamErrorsTest {

  private static final ServerAddress SERVER = new ServerAddress("db1", 27017);

  private static MongoQueryException getMoreError(String json) {
    return new MongoQueryException(BsonDocument.parse(json), SERVER);
  }

  @Test
  void historyLostCodesAreNeverRetryable() {
    String[] replies = {
        "{ok: 0, errmsg: 'Executor error during getMore :: caused by :: Resume of change stream was not possible,"
            + " as the resume point may no longer be in the oplog.', code: 286, codeName: 'ChangeStreamHistoryLost'}",
        "{ok: 0, errmsg: 'CollectionScan died due to position in capped collection being deleted.', code: 136,"
            + " codeName: 'CappedPositionLost'}",
        "{ok: 0, errmsg: 'Invalid resume token: the resume token is malformed', code: 260,"
            + " codeName: 'InvalidResumeToken'}"};
    for (String reply : replies) {
      ChangeStreamException error = ChangeStreamErrors.classify(getMoreError(reply));
      assertInstanceOf(ChangeStreamHistoryLostException.class, error, reply);
      assertFalse(error.retryable());
      assertTrue(error.getMessage().contains("resynchronised"), error.getMessage());
    }
  }

  @Test
  void resumeTokenNotFoundIsRecoverableButOtherFatalErrorsAreNot() {
    ChangeStreamException notFound = ChangeStreamErrors.classify(getMoreError(
        "{ok: 0, errmsg: 'Executor error during getMore :: caused by :: cannot resume stream; the resume token was"
            + " not found. {_data: \"8265A1B2C3000000042B042C0100296E04\"}', code: 280,"
            + " codeName: 'ChangeStreamFatalError'}"));
    assertInstanceOf(ResumeTokenNotFoundException.class, notFound);
    assertEquals(280, notFound.serverErrorCode());

    ChangeStreamException fatal = ChangeStreamErrors.classify(getMoreError(
        "{ok: 0, errmsg: 'Encountered an event whose _id field, which contains the resume token, was modified by"
            + " the pipeline.', code: 280, codeName: 'ChangeStreamFatalError'}"));
    assertInstanceOf(ChangeStreamHistoryLostException.class, fatal);
  }

  @Test
  void anOversizedEventSaysHowToFixIt() {
    ChangeStreamException error = ChangeStreamErrors.classify(getMoreError(
        "{ok: 0, errmsg: 'Executor error during getMore :: caused by :: BSONObj size: 17825792 (0x1100000) is"
            + " invalid. Size must be between 0 and 16793600(16MB)', code: 10334, codeName: 'BSONObjectTooLarge'}"));
    assertInstanceOf(OversizedEventException.class, error);
    assertFalse(error.retryable());
    assertTrue(error.getMessage().contains("enable splitLargeEvents"), error.getMessage());
  }

  @Test
  void missingPrivilegesAndBadCredentialsAreAccessDenied() {
    ChangeStreamException unauthorized = ChangeStreamErrors.classify(new MongoCommandException(BsonDocument.parse(
        "{ok: 0, errmsg: 'not authorized on shop to execute command { aggregate: 1, pipeline: [] }', code: 13,"
            + " codeName: 'Unauthorized'}"), SERVER));
    assertInstanceOf(SourceAccessDeniedException.class, unauthorized);
    assertFalse(unauthorized.retryable());

    ChangeStreamException badPassword = ChangeStreamErrors.classify(new MongoSecurityException(
        MongoCredential.createScramSha256Credential("cdc", "admin", "secret".toCharArray()),
        "Exception authenticating MongoCredential{mechanism=SCRAM-SHA-256, userName='cdc', source='admin'}"));
    assertInstanceOf(SourceAccessDeniedException.class, badPassword);
    assertFalse(badPassword.getMessage().contains("secret"));
  }

  @Test
  void electionsStepDownsAndNetworkFailuresAreRetryable() {
    ChangeStreamException stepDown = ChangeStreamErrors.classify(getMoreError(
        "{ok: 0, errmsg: 'not primary', code: 10107, codeName: 'NotWritablePrimary',"
            + " errorLabels: ['ResumableChangeStreamError']}"));
    assertTrue(stepDown.retryable());
    assertEquals(ChangeStreamException.class, stepDown.getClass());

    ChangeStreamException shutdown = ChangeStreamErrors.classify(getMoreError(
        "{ok: 0, errmsg: 'The server is in quiesce mode and will shut down', code: 91,"
            + " codeName: 'ShutdownInProgress'}"));
    assertTrue(shutdown.retryable());

    ChangeStreamException network = ChangeStreamErrors.classify(
        new MongoSocketReadException("Prematurely reached end of stream", SERVER));
    assertTrue(network.retryable());
    assertTrue(network.getMessage().startsWith("MongoDB is unreachable"), network.getMessage());
  }

  @Test
  void anUnknownServerErrorIsNotRetriedBlindly() {
    ChangeStreamException error = ChangeStreamErrors.classify(getMoreError(
        "{ok: 0, errmsg: 'A pipeline stage specification object must contain exactly one field.', code: 40323,"
            + " codeName: 'Location40323'}"));
    assertFalse(error.retryable());
    assertEquals(40323, error.serverErrorCode());
  }

  @Test
  void credentialsEchoedInAServerMessageAreRedacted() {
    ChangeStreamException error = ChangeStreamErrors.classify(getMoreError(
        "{ok: 0, errmsg: 'bad option in mongodb://cdc:hunter2@db1:27017/', code: 2, codeName: 'BadValue'}"));
    assertFalse(error.getMessage().contains("hunter2"), error.getMessage());
    assertTrue(error.getMessage().contains("mongodb://cdc:***@db1"), error.getMessage());
  }
}
