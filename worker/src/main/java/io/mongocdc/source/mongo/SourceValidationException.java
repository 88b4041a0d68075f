package io.mongocdc.source.mongo;

import java.util.List;

/** The source cannot serve the mirror; the message lists every problem found. Not retryable. */
public class SourceValidationException extends RuntimeException {

  private final List<String> problems;

  public SourceValidationException(List<String> problems) {
    super("the MongoDB source cannot serve this mirror: " + String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
