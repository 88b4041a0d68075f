package io.mongocdc.source;

/**
 * The source refused the mirror's credentials or lacks a privilege it needs (18
 * AuthenticationFailed, 13 Unauthorized, ...). Not retryable: an operator must fix the user.
 */
public class SourceAccessDeniedException extends ChangeStreamException {

  public SourceAccessDeniedException(String message, int serverErrorCode, Throwable cause) {
    super(message, serverErrorCode, false, cause);
  }
}
