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
    assertFalse(set.addIfAbsent("\"k17\""), "a key added before is not new");
    assertFalse(set.addIfAbsent("\"k17\""), "nor the time after");
    set.clear();
    assertTrue(set.addIfAbsent("\"k17\""), "new again after clear");
    assertTrue(set.addIfAbsent("\"k50000\""));
  }

  @Test
  void givesUpPastItsCapacity() {
    KeyHashSet set = new KeyHashSet(10);
    for (int i = 0; i < 10; i++) {
      assertTrue(set.addIfAbsent("k" + i));
    }
    assertFalse(set.addIfAbsent("k10"), "a full set cannot promise a key is new");
    assertFalse(set.addIfAbsent("k0"));
  }
}
