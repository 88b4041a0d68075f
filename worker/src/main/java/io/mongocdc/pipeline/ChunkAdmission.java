package io.mongocdc.pipeline;

import java.util.concurrent.CountDownLatch;

/**
 * One pull's way into the {@link DecodedBytesBudget}: its chunks take their decoded bytes strictly
 * in the order the reader cut them, whichever worker finishes first.
 *
 * <p>Order is what keeps a shared budget free of deadlock: every chunk holding bytes is then one
 * the sender can reach without waiting for a chunk that has none, so the holders always drain.
 * The wait for a turn cannot block the chunk whose turn it is either: the decode pool starts
 * tasks in the order they were submitted, so an earlier chunk is always already being decoded.
 */
final class ChunkAdmission implements AutoCloseable {

  private final DecodedBytesBudget.Account account;
  /** The turn of the chunk cut last; only the reader thread touches it. */
  private CountDownLatch lastTurn = new CountDownLatch(0);

  ChunkAdmission(DecodedBytesBudget budget) {
    this.account = budget.openAccount();
  }

  /** The reader's call, in cut order: the turn of the chunk it is about to hand to the pool. */
  Turn nextTurn() {
    Turn turn = new Turn(lastTurn);
    lastTurn = turn.done;
    return turn;
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

  /** One chunk's place in the order. */
  final class Turn {
    private final CountDownLatch previous;
    private final CountDownLatch done = new CountDownLatch(1);

    private Turn(CountDownLatch previous) {
      this.previous = previous;
    }

    /**
     * Waits until the chunk cut before this one has its bytes, then until the budget has room for
     * this one's; either wait ends on interrupt.
     */
    DecodedBytesBudget.Lease admit(long bytes) throws InterruptedException {
      try {
        previous.await();
        return account.acquire(bytes);
      } finally {
        done.countDown();
      }
    }

    /** The chunk will never be admitted (its decode failed): the next one need not wait for it. */
    void skip() {
      done.countDown();
    }
  }
}
