package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KeyHashSetTest {

  @Test
  void reportsRepeatsAndClears() {
    KeyHashSet set = new KeyHashSet(1_000_000);
    for (int i = 0; i < 50_000; i++) {
      assertTrue(set.addIfAbsent("\"k" + i + "\""), "key " + i);
    }
    assertFalse(set.maybeDuplicates());
    assertFalse(set.addIfAbsent("\"k17\""));
    assertTrue(set.maybeDuplicates());
    set.clear();
    assertFalse(set.maybeDuplicates());
    assertTrue(set.addIfAbsent("\"k17\""));
  }

  @Test
  void givesUpPastItsCapacity() {
    KeyHashSet set = new KeyHashSet(10);
    for (int i = 0; i < 10; i++) {
      assertTrue(set.addIfAbsent("k" + i));
    }
    assertFalse(set.addIfAbsent("k10"), "a full set cannot promise a key is new");
    assertTrue(set.maybeDuplicates());
  }
}
