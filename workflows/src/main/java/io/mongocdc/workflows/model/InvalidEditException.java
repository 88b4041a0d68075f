package io.mongocdc.workflows.model;

import java.util.List;

/** An edit that cannot be applied; the message names every problem, in one line. */
public class InvalidEditException extends IllegalArgumentException {

  private final List<String> problems;

  public InvalidEditException(List<String> problems) {
    super("invalid edit: " + String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
