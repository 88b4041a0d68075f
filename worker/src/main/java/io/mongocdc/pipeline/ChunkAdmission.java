package io.mongocdc.pipeline;

/**
 * One pull's way into the {@link DecodedBytesBudget}: the reader reserves each chunk's bytes, at
 * most what its decoded events could take, before handing it to the decode pool.
 *
 * <p>Reserving on the reader thread keeps two things true. Chunks take their bytes in the order
 * they were cut, which keeps a shared budget free of deadlock: every chunk holding bytes is one
 * the sender can reach without waiting for a chunk that has none, so the holders always drain.
 * And a chunk is inside the budget while it is decoded, not only after: a decode worker never
 * holds decoded text the budget does not count.
 */
final class ChunkAdmission implements AutoCloseable {

  private final DecodedBytesBudget.Account account;

  ChunkAdmission(DecodedBytesBudget budget) {
    this.account = budget.openAccount();
  }

  /**
   * The reader's call, in cut order: waits until the budget has room for the chunk's most
   * decoded bytes, then takes them. The decode worker shrinks the lease to what the chunk took.
   *
   * @throws InterruptedException if interrupted while waiting (the pull is aborting)
   */
  DecodedBytesBudget.Lease reserve(RawChunk chunk) throws InterruptedException {
    return account.acquire(ChunkDecoder.mostHeapBytesOf(chunk));
  }

  /** Decoded bytes this pull holds now. */
  long heldBytes() {
    return account.heldBytes();
  }

  /** Returns whatever the pull still holds; call once its threads have stopped. */
  @Override
  public void close() {
    account.close();
  }
}
