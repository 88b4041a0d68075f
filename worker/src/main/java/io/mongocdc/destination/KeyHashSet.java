package io.mongocdc.destination;

import java.util.Arrays;

/**
 * Remembers 64-bit hashes of the keys written to one table in the current transaction, so the
 * sink knows a key's first record, which may be copied straight into a table that was empty. A
 * hash seen twice only means "maybe seen": the record then goes through the merge, which is
 * always correct. Memory is capped: past {@code maxEntries} keys no key counts as new.
 */
final class KeyHashSet {

  private static final long EMPTY = 0L;

  private final int maxEntries;
  private long[] slots = new long[1024];
  private int size;

  KeyHashSet(int maxEntries) {
    this.maxEntries = maxEntries;
  }

  void clear() {
    if (slots.length > 1 << 16) {
      slots = new long[1024];
    } else {
      Arrays.fill(slots, EMPTY);
    }
    size = 0;
  }

  /**
   * Adds a key's hash.
   *
   * @return true if the key is certainly new in this batch; false if it may have been added
   *     before (or the set is full)
   */
  boolean addIfAbsent(String key) {
    if (size >= maxEntries) {
      return false;
    }
    long h = hash(key);
    if (h == EMPTY) {
      h = 1;
    }
    if ((size + 1) * 2 > slots.length) {
      grow();
    }
    int mask = slots.length - 1;
    int i = (int) (h ^ (h >>> 32)) & mask;
    while (true) {
      long s = slots[i];
      if (s == EMPTY) {
        slots[i] = h;
        size++;
        return true;
      }
      if (s == h) {
        return false;
      }
      i = (i + 1) & mask;
    }
  }

  private void grow() {
    long[] old = slots;
    slots = new long[old.length * 2];
    int mask = slots.length - 1;
    for (long h : old) {
      if (h != EMPTY) {
        int i = (int) (h ^ (h >>> 32)) & mask;
        while (slots[i] != EMPTY) {
          i = (i + 1) & mask;
        }
        slots[i] = h;
      }
    }
  }

  /** FNV-1a over the UTF-16 units, then a 64-bit finaliser. */
  static long hash(String key) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < key.length(); i++) {
      h ^= key.charAt(i);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
