package io.mongocdc.devtools.generator;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** A multi-document transaction being generated: its number, session and next operation index. */
final class Transaction {

  final long number;
  final byte[] sessionId;
  private int nextOpIndex;

  Transaction(long number, UUID session) {
    this.number = number;
    this.sessionId = session.toString().getBytes(StandardCharsets.US_ASCII);
  }

  int nextOpIndex() {
    return nextOpIndex++;
  }
}
