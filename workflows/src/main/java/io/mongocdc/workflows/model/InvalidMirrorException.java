package io.mongocdc.workflows.model;

import java.util.List;

/** A mirror configuration that cannot work; the message names every problem, in one line. */
public class InvalidMirrorException extends IllegalArgumentException {

  public InvalidMirrorException(String mirror, List<String> problems) {
    super("invalid mirror '" + mirror + "': " + String.join("; ", problems));
  }
}
