package io.mongocdc.source;

/**
 * A failure reported by the change stream. Subclasses say what it means; {@link #retryable()}
 * says whether trying the same batch again later can succeed.
 */
public class ChangeStreamException extends RuntimeException {

  private final int serverErrorCode;
  private final boolean retryable;

  public ChangeStreamException(String message, int serverErrorCode, boolean retryable, Throwable cause) {
    super(message, cause);
    this.serverErrorCode = serverErrorCode;
    this.retryable = retryable;
  }

  /** The MongoDB server error code, or 0 if the failure did not come from the server. */
  public int serverErrorCode() {
    return serverErrorCode;
  }

  /** True if the same batch may succeed when tried again (network, election, step-down). */
  public boolean retryable() {
    return retryable;
  }
}
