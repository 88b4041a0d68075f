package io.mongocdc.privacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Reading names eight bytes at a time: every position of the 0x00 or of a differing byte, and every bound. */
class ElementTest {

  @Test
  void theFirstZeroIsFoundAtEveryPositionAndNoneOutsideTheRange() {
    for (int length = 0; length <= 40; length++) {
      for (int zero = 0; zero <= length; zero++) {
        byte[] b = new byte[length + 6];
        java.util.Arrays.fill(b, (byte) 'a');
        // 0x80 and 0x01 bytes too: the word test must not take them for zeros.
        for (int i = 0; i < b.length; i += 3) {
          b[i] = (byte) (i % 2 == 0 ? 0x80 : 0x01);
        }
        if (zero < length) {
          b[3 + zero] = 0;
          b[3 + length - 1] = 0; // a later zero must not win over the first
        }
        b[2] = 0; // before the range
        b[3 + length] = 0; // at its end, outside it
        int expected = zero < length ? 3 + zero : -1;
        assertEquals(expected, Element.zeroAt(b, 3, 3 + length), "length " + length + ", zero at " + zero);
      }
    }
  }

  @Test
  void aNameMatchesOnlyWhenEveryOneOfItsBytesDoes() {
    for (int length = 0; length <= 33; length++) {
      byte[] name = new byte[length];
      for (int i = 0; i < length; i++) {
        name[i] = (byte) ('a' + i % 26);
      }
      byte[] b = new byte[length + 7];
      System.arraycopy(name, 0, b, 4, length);
      assertTrue(Element.startsWith(b, 4, name), "length " + length);
      for (int differing = 0; differing < length; differing++) {
        byte[] other = b.clone();
        other[4 + differing] ^= 0x20;
        assertFalse(Element.startsWith(other, 4, name), "length " + length + ", byte " + differing + " differs");
      }
    }
  }
}
