package io.mongocdc.activities;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.ports.PeerAuthenticationException;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoSecurityException;
import io.mongocdc.decode.ChangeEventDecodeException;
import io.mongocdc.decode.DocumentRenderException;
import io.mongocdc.pipeline.PoisonEventException;
import io.mongocdc.pipeline.PullRecordsException;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.snapshot.UnsupportedSourceReadException;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.SourceAccessDeniedException;
import io.mongocdc.workflows.FailureTypes;
import io.mongocdc.workflows.model.InvalidEditException;
import io.mongocdc.workflows.model.InvalidMirrorException;
import io.temporal.failure.ApplicationFailure;
import java.sql.SQLException;
import java.util.Set;

/**
 * Turns an activity's failure into the ApplicationFailure Temporal records: history lost,
 * invalid configuration, authentication, undecodable and poison events, running out of heap, and writes the
 * destination refuses for good are not retryable and carry an operator message saying what to
 * do; anything else (network, primary step-down, destination unavailable, timeouts) is retried
 * with backoff.
 *
 * <p>The failure carries a redacted one-line message and no cause: a cause's message and stack
 * trace would go into workflow history verbatim, and driver messages can quote connection
 * strings.
 */
public final class FailureClassifier {

  /**
   * SQLSTATE classes of errors about what was written, not about the connection or the server's
   * state: data exceptions, integrity violations, syntax or access rule violations, program
   * limits. The same write fails the same way on every retry.
   */
  private static final Set<String> REJECTING_SQL_CLASSES = Set.of("22", "23", "42", "54");
  /**
   * A duplicate key is the one integrity violation a retry can fix: another writer inserted the
   * row between the merge's check and its insert, and the retry's merge updates it instead.
   */
  private static final String UNIQUE_VIOLATION = "23505";

  /** MongoDB's AuthenticationFailed and Unauthorized. */
  private static final Set<Integer> MONGO_AUTH_CODES = Set.of(18, 13);

  private FailureClassifier() {}

  /**
   * The failure Temporal records for {@code failure} of activity {@code what}. Every activity's
   * failure comes here through {@link ActivityFailureInterceptor}; an activity calls it itself only
   * to log or record the classified failure before it throws it.
   */
  public static ApplicationFailure classify(String what, Throwable failure) {
    String type = typeOf(failure);
    String message = Redaction.redact(what + ": " + advice(type, messageOf(failure)));
    return FailureTypes.NON_RETRYABLE.contains(type)
        ? ApplicationFailure.newNonRetryableFailure(message, type)
        : ApplicationFailure.newFailure(message, type);
  }

  static String typeOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryError) {
        return FailureTypes.OUT_OF_MEMORY;
      }
      if (t instanceof ChangeStreamHistoryLostException) {
        return FailureTypes.HISTORY_LOST;
      }
      if (t instanceof InvalidMirrorConfigurationException
          || t instanceof UnsupportedSourceReadException
          || t instanceof InvalidMirrorException
          || t instanceof InvalidEditException) {
        return FailureTypes.INVALID_CONFIGURATION;
      }
      if (t instanceof PeerAuthenticationException
          || t instanceof MongoSecurityException
          || (t instanceof MongoCommandException command && MONGO_AUTH_CODES.contains(command.getErrorCode()))
          || (t instanceof ChangeStreamException stream && MONGO_AUTH_CODES.contains(stream.serverErrorCode()))
          || (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("28"))) {
        return FailureTypes.AUTHENTICATION_FAILED;
      }
      if (t instanceof PoisonEventException) {
        return FailureTypes.POISON_EVENT;
      }
      if (t instanceof SQLException sql && rejects(sql.getSQLState())) {
        return FailureTypes.DESTINATION_REJECTED;
      }
      if (t instanceof ChangeEventDecodeException || t instanceof DocumentRenderException) {
        return FailureTypes.UNDECODABLE_EVENT;
      }
      if (t instanceof SourceAccessDeniedException) {
        return FailureTypes.AUTHENTICATION_FAILED;
      }
      if (t instanceof ChangeStreamException stream && !stream.retryable()) {
        // An oversized event or a server error retrying cannot fix: the message says what to change.
        return FailureTypes.INVALID_CONFIGURATION;
      }
    }
    return FailureTypes.TRANSIENT;
  }

  private static boolean rejects(String sqlState) {
    return sqlState != null && sqlState.length() == 5 && !UNIQUE_VIOLATION.equals(sqlState)
        && REJECTING_SQL_CLASSES.contains(sqlState.substring(0, 2));
  }

  private static String advice(String type, String message) {
    return switch (type) {
      case FailureTypes.HISTORY_LOST -> "the change stream no longer holds the history at the mirror's checkpoint ("
          + message + "); nothing was skipped, but the mirror must be resynchronised: run mongo-cdc mirror resync "
          + "<name> (it copies every collection again into the same tables), or turn on autoResync";
      case FailureTypes.INVALID_CONFIGURATION -> "invalid configuration: " + message
          + "; fix the mirror or the worker's peers, then resume the mirror";
      case FailureTypes.AUTHENTICATION_FAILED -> "authentication failed: " + message
          + "; fix the peer's credentials in the worker's configuration, restart the worker, then resume the mirror";
      case FailureTypes.UNDECODABLE_EVENT -> "an event cannot be decoded: " + message
          + "; the checkpoint stops before it; exclude its operation type, or set poisonEventPolicy to QUARANTINE to"
          + " keep it in the catalog and go on, then resume";
      case FailureTypes.POISON_EVENT -> message + "; the checkpoint stops before it; set poisonEventPolicy to "
          + "QUARANTINE to keep such events in the catalog's quarantined_events and go on, then resume";
      case FailureTypes.DESTINATION_REJECTED -> "the destination refused the write, and would on every retry: "
          + message + "; fix the destination (a constraint, trigger, privilege or table of its own), then resume";
      case FailureTypes.OUT_OF_MEMORY -> "the worker ran out of memory (" + message + "); not retried, the same batch"
          + " would run out again: lower the worker's --max-decoded-bytes-in-flight, or the mirror's decodeWorkers"
          + " or chunkSize, or give the worker more heap (-Xmx), then resume the mirror";
      default -> message;
    };
  }

  private static SQLException firstSqlException(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  /** The message of the first failure (a pull failure's cause), in one line. */
  private static String messageOf(Throwable failure) {
    Throwable first = failure instanceof PullRecordsException && failure.getCause() != null ? failure.getCause() : failure;
    String message = first.getMessage() == null ? first.getClass().getSimpleName() : first.getMessage();
    SQLException sql = firstSqlException(first);
    if (sql != null && sql.getSQLState() != null && !message.contains(sql.getSQLState())) {
      message = message + " (SQLSTATE " + sql.getSQLState() + ")";
    }
    return message.replaceAll("\\s+", " ").trim();
  }
}
