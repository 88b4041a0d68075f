package io.mongocdc.decode;

/**
 * UTF-8 well-formedness per the Unicode standard (table 3-7), shared by the JSON and key
 * writers so both agree on what is invalid.
 *
 * <p>An ill-formed sequence is measured as its "maximal subpart" (the longest prefix that could
 * still start a well-formed sequence), the unit the Unicode standard recommends replacing with
 * one U+FFFD. It is also what the JDK's UTF-8 decoder (and therefore the MongoDB driver)
 * replaces, so our output matches what the driver would show for the same bytes.
 */
final class Utf8Validation {

  private Utf8Validation() {}

  /**
   * The length of the sequence starting with the non-ASCII byte at {@code i}: positive (2 to 4)
   * if it is well formed, or minus the length of the ill-formed part to replace (-1 to -3).
   *
   * @param end exclusive end of the string's bytes
   */
  static int sequenceLength(byte[] s, int i, int end) {
    int b0 = s[i] & 0xFF;
    if (b0 < 0xC2) {
      return -1; // a continuation byte, or an overlong 2-byte lead (C0, C1)
    }
    if (b0 < 0xE0) {
      return i + 1 < end && isContinuation(s[i + 1]) ? 2 : -1;
    }
    if (b0 < 0xF0) {
      // E0 needs A0..BF next (no overlongs).
      int lo = b0 == 0xE0 ? 0xA0 : 0x80;
      if (i + 1 >= end || !inRange(s[i + 1], lo, 0xBF)) {
        return -1;
      }
      if (i + 2 >= end || !isContinuation(s[i + 2])) {
        return -2;
      }
      // ED A0..BF xx encodes a UTF-16 surrogate, which is not a character. The JDK decoder
      // (so the driver) replaces the whole three bytes with one U+FFFD, where the Unicode
      // recommendation would use three; we follow the driver so both show the same text.
      return b0 == 0xED && (s[i + 1] & 0xFF) >= 0xA0 ? -3 : 3;
    }
    if (b0 < 0xF5) {
      // F0 needs 90..BF next (no overlongs); F4 needs 80..8F (nothing above U+10FFFF).
      int lo = b0 == 0xF0 ? 0x90 : 0x80;
      int hi = b0 == 0xF4 ? 0x8F : 0xBF;
      if (i + 1 >= end || !inRange(s[i + 1], lo, hi)) {
        return -1;
      }
      if (i + 2 >= end || !isContinuation(s[i + 2])) {
        return -2;
      }
      return i + 3 < end && isContinuation(s[i + 3]) ? 4 : -3;
    }
    return -1; // F5..FF never occur in UTF-8
  }

  private static boolean isContinuation(byte b) {
    return (b & 0xC0) == 0x80;
  }

  private static boolean inRange(byte b, int lo, int hi) {
    int v = b & 0xFF;
    return v >= lo && v <= hi;
  }
}
