package io.mongocdc.cli;

import picocli.CommandLine;

/** The exit codes of {@code mongo-cdc} (documented in docs/operations.md). */
final class ExitCodes {

  static final int OK = CommandLine.ExitCode.OK;
  /** The operation failed: Temporal unreachable, the mirror in the wrong state, ... */
  static final int FAILED = CommandLine.ExitCode.SOFTWARE;
  /** Bad command line, invalid mirror configuration, rejected edit. */
  static final int INVALID = CommandLine.ExitCode.USAGE;
  /** No such mirror. */
  static final int NOT_FOUND = 3;

  private ExitCodes() {}
}
