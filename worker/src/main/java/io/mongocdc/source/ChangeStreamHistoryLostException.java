package io.mongocdc.source;

/**
 * The change stream's history at the requested position is gone (286 ChangeStreamHistoryLost,
 * 136 CappedPositionLost, 260 InvalidResumeToken, or a failed recovery from 280). Never
 * retryable, and never papered over by restarting "from now": the operator must resynchronise
 * the mirror (a new snapshot).
 */
public class ChangeStreamHistoryLostException extends ChangeStreamException {

  public ChangeStreamHistoryLostException(String message, int serverErrorCode, Throwable cause) {
    super(message, serverErrorCode, false, cause);
  }
}
