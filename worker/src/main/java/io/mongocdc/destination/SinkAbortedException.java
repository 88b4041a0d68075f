package io.mongocdc.destination;

/** The sink was aborted (from another thread) while or before this call ran. */
public class SinkAbortedException extends Exception {

  public SinkAbortedException(String message, Throwable cause) {
    super(message, cause);
  }
}
