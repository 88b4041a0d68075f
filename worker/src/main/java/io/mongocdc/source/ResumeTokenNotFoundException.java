package io.mongocdc.source;

/**
 * The server could not find the resume token in the oplog although the history may still exist
 * (error 280 ChangeStreamFatalError, "resume token was not found"), seen for example after the
 * set of watched collections changed. Recoverable: reopen at the token's cluster time and skip
 * events at or before the token.
 */
public class ResumeTokenNotFoundException extends ChangeStreamException {

  public static final int SERVER_CODE = 280;

  public ResumeTokenNotFoundException(String message, Throwable cause) {
    super(message, SERVER_CODE, true, cause);
  }
}
