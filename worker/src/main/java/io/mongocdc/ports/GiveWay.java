package io.mongocdc.ports;

/**
 * What a copy's sink asks between two of its transactions, holding no connection then: whether
 * other work (a change batch) waits for the connections the copy holds, and if so, to hand them
 * over and wait until the copy may take them again. A partition commits a chunk at a time, so a
 * batch waits for one chunk's transaction, not for the whole partition.
 */
public interface GiveWay {

  /** For copies that hold no budget (and the sweep): never gives way. */
  GiveWay NEVER = new GiveWay() {
    @Override
    public boolean wanted() {
      return false;
    }

    @Override
    public void giveWay() {}
  };

  /** Whether other work waits for the connections now. */
  boolean wanted();

  /** Hands the connections over and returns once they were taken again. */
  void giveWay() throws InterruptedException;
}
