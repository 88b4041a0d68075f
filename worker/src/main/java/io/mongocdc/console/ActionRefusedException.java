package io.mongocdc.console;

/** An action the mirror's workflow, or Temporal, refused: the message says why, for the operator. */
public final class ActionRefusedException extends RuntimeException {

  public ActionRefusedException(String message) {
    super(message);
  }
}
