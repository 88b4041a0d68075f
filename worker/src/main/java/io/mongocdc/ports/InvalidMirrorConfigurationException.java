package io.mongocdc.ports;

/** A mirror or peer configuration that cannot work; retrying will not help. */
public class InvalidMirrorConfigurationException extends RuntimeException {

  public InvalidMirrorConfigurationException(String message) {
    super(message);
  }
}
