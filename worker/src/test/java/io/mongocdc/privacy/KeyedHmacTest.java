package io.mongocdc.privacy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The pre-keyed HMAC gives the bytes {@code javax.crypto.Mac} gives, for every key length and input length. */
class KeyedHmacTest {

  @Test
  void everyKeyLengthAroundTheBlockAndEveryInputLengthHashAsMacDoes() throws Exception {
    Random random = new Random(7);
    // Keys shorter than SHA-256's 64-byte block are padded, longer ones hashed first; inputs cross block ends.
    for (int keyLength : new int[] {16, 32, 63, 64, 65, 128, 200}) {
      byte[] key = new byte[keyLength];
      random.nextBytes(key);
      KeyedHmac keyed = new KeyedHmac(key);
      KeyedHmac otherThread = keyed.copy();
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      for (int length : new int[] {0, 1, 31, 55, 56, 63, 64, 65, 119, 120, 1000}) {
        byte[] input = new byte[length + 10];
        random.nextBytes(input);
        byte[] expected = mac.doFinal(java.util.Arrays.copyOfRange(input, 5, 5 + length));
        assertArrayEquals(expected, keyed.mac(KeyedHmac.NOTHING, input, 5, length, KeyedHmac.NOTHING),
            "key of " + keyLength + " bytes, input of " + length);
        // The same input in three parts, as a string value's hash feeds it; and from the thread's copy.
        int cut = length / 3;
        byte[] head = java.util.Arrays.copyOfRange(input, 5, 5 + cut);
        byte[] tail = java.util.Arrays.copyOfRange(input, 5 + 2 * cut, 5 + length);
        assertArrayEquals(expected, otherThread.mac(head, input, 5 + cut, cut, tail));
      }
    }
  }

  @Test
  void aKeysFingerprintIsWhatItWasWhenMacComputedIt() {
    // A mirror records its key's fingerprint and refuses another: moving the computation would lock mirrors out.
    assertEquals("2e8a5cf2b7f66567", HashKey.of("0123456789abcdef0123456789abcdef", "test").fingerprint());
    assertEquals("05b4c9b7d72afeff", HashKey.of("k".repeat(100), "test").fingerprint());
  }
}
