package io.mongocdc.source;

/** A failure reported by the change stream. Subclasses say what can be done about it. */
public class ChangeStreamException extends RuntimeException {

  private final int serverErrorCode;

  public ChangeStreamException(String message, int serverErrorCode, Throwable cause) {
    super(message, cause);
    this.serverErrorCode = serverErrorCode;
  }

  public ChangeStreamException(String message) {
    this(message, 0, null);
  }

  /** The MongoDB server error code, or 0 if the failure did not come from the server. */
  public int serverErrorCode() {
    return serverErrorCode;
  }
}
