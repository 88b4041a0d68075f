package io.mongocdc.source.mongo;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoSecurityException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.OversizedEventException;
import io.mongocdc.source.ResumeTokenNotFoundException;
import io.mongocdc.source.SourceAccessDeniedException;
import java.util.Locale;
import io.mongocdc.secrets.Redaction;
import java.util.Set;

/**
 * Classifies the driver's exceptions into the source's failure types, by server error code
 * first and exception type second. Messages are redacted: the driver's text never carries a
 * password, but a connection string echoed back in one must not reach logs or history.
 */
public final class ChangeStreamErrors {

  /** The oplog no longer holds the position: 286 ChangeStreamHistoryLost, 136 CappedPositionLost, 260 InvalidResumeToken. */
  static final Set<Integer> HISTORY_LOST = Set.of(286, 136, 260);
  /** Credentials or privileges: 18 AuthenticationFailed, 13 Unauthorized, 8000 AtlasError (auth). */
  static final Set<Integer> ACCESS_DENIED = Set.of(18, 13, 8000);
  static final int CHANGE_STREAM_FATAL = 280;
  /** A server cursor is gone, the collection is not: 43 CursorNotFound, 175 QueryPlanKilled, 237 CursorKilled. */
  static final Set<Integer> CURSOR_LOST = Set.of(43, 175, 237);

  private ChangeStreamErrors() {}

  /** The classified failure for a driver exception thrown while opening or reading a stream. */
  public static ChangeStreamException classify(MongoException error) {
    int code = error.getCode();
    String message = Redaction.redact(error.getMessage());
    if (error instanceof MongoInterruptedException) {
      return new ChangeStreamException("change stream read interrupted: " + message, code, true, error);
    }
    if (error instanceof MongoSecurityException) {
      return new SourceAccessDeniedException("MongoDB refused the mirror's credentials: " + message, code, error);
    }
    if (error instanceof MongoServerException) {
      if (HISTORY_LOST.contains(code)) {
        return new ChangeStreamHistoryLostException(
            "the change stream history at the mirror's checkpoint is gone (MongoDB error " + code + ": " + message
                + "); the mirror must be resynchronised with a new snapshot", code, error);
      }
      if (code == CHANGE_STREAM_FATAL) {
        if (message != null && message.toLowerCase(Locale.ROOT).contains("resume token was not found")) {
          return new ResumeTokenNotFoundException(message, error);
        }
        return new ChangeStreamHistoryLostException(
            "the change stream cannot continue (MongoDB error 280: " + message + ")", code, error);
      }
      if (code == OversizedEventException.SERVER_CODE) {
        return new OversizedEventException("a change event is larger than 16 MiB (MongoDB error 10334: " + message
            + "); enable splitLargeEvents for this mirror (mongo-cdc mirror edit <name> --split-large-events, "
            + "or the edit {\"splitLargeEvents\": true}; MongoDB 6.0.9+ or 7.0+), then resume it", error);
      }
      if (ACCESS_DENIED.contains(code)) {
        return new SourceAccessDeniedException(
            "the mirror's MongoDB user lacks a privilege (MongoDB error " + code + ": " + message
                + "); it needs changeStream and find on the watched collections", code, error);
      }
      boolean retryable = error.hasErrorLabel(MongoException.TRANSIENT_TRANSACTION_ERROR_LABEL)
          || error.hasErrorLabel("ResumableChangeStreamError")
          || isElectionOrShutdown(code)
          || CURSOR_LOST.contains(code);
      String kind = error instanceof MongoCommandException ? "command" : "server";
      return new ChangeStreamException(
          "MongoDB " + kind + " error " + code + " on the change stream: " + message, code, retryable, error);
    }
    if (error instanceof MongoSocketException || error instanceof MongoTimeoutException) {
      return new ChangeStreamException("MongoDB is unreachable: " + message, code, true, error);
    }
    return new ChangeStreamException("change stream failed: " + message, code, true, error);
  }

  /** Primary stepped down, node recovering or shutting down, election in progress. */
  private static boolean isElectionOrShutdown(int code) {
    return switch (code) {
      case 10107, 13435, 11600, 11602, 189, 91, 13436, 6, 7, 89, 9001, 262 -> true;
      default -> false;
    };
  }
}
