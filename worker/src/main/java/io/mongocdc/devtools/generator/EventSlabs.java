package io.mongocdc.devtools.generator;

import org.bson.RawBsonDocument;

/**
 * Where generated events are written: back to back in large shared arrays, not one array each.
 *
 * <p>At full speed the generator makes hundreds of megabytes of events a second and keeps the
 * last {@link LoadProfile#retainedEvents()} of them: as separate arrays, every young collection
 * would copy the retained ones again. Slabs this large are allocated outside the young
 * generation (G1's humongous objects, for regions up to 16 MB), so they are never copied, and
 * one is freed as a whole once none of its events is retained or held by a reader.
 */
final class EventSlabs {

  // Just under 16 MB, so that the array with its header fills whole G1 regions.
  static final int LARGE_SLABS = 16 * 1024 * 1024 - 64;
  // Room kept for one event (the largest generated ones are ~30 KB), so that none spans two slabs.
  private static final int EVENT_ROOM = 128 * 1024;

  private final int slabSize;
  private byte[] slab;
  private int used;
  private int start;

  /** Slabs of {@link #LARGE_SLABS} bytes: for a generator that keeps a large window at full speed. */
  EventSlabs() {
    this(LARGE_SLABS);
  }

  /**
   * Slabs of {@code slabSize} bytes (at least twice the room one event is given): smaller ones
   * suit a generator that keeps a small window in a small heap, such as one per mirror on a worker.
   */
  EventSlabs(int slabSize) {
    if (slabSize < 2 * EVENT_ROOM) {
      throw new IllegalArgumentException("a slab must hold at least " + 2 * EVENT_ROOM + " bytes, got " + slabSize);
    }
    this.slabSize = slabSize;
  }

  /** Points {@code out} at the free part of the current slab, where the next event goes. */
  void startEvent(BsonBytes out) {
    if (slab == null || slab.length - used < EVENT_ROOM) {
      slab = new byte[slabSize];
      used = 0;
    }
    out.writeInto(slab, used);
    start = used;
  }

  /** The event written into {@code out} since {@link #startEvent}. */
  RawBsonDocument finishEvent(BsonBytes out) {
    // An event larger than the room would have made out grow into a copy of the slab: it is the slab now.
    slab = out.buffer();
    used = out.position();
    return new RawBsonDocument(slab, start, used - start);
  }
}
