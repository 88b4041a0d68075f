package io.mongocdc.cli;

/** A failure to report to the operator as one line, with the exit code it deserves. */
final class CliException extends RuntimeException {

  private final int exitCode;

  CliException(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
