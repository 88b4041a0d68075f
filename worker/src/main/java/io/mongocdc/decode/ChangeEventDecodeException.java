package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;

/** A change event that cannot be decoded. The message names the event's position and why. */
public class ChangeEventDecodeException extends RuntimeException {

  private final ResumeToken position;

  public ChangeEventDecodeException(ResumeToken position, String reason, Throwable cause) {
    super("cannot decode change event at " + position + ": " + reason, cause);
    this.position = position;
  }

  public ChangeEventDecodeException(ResumeToken position, String reason) {
    this(position, reason, null);
  }

  /** The resume token of the event that failed. */
  public ResumeToken position() {
    return position;
  }
}
