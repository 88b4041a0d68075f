package io.mongocdc.privacy;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * HMAC-SHA-256 (RFC 2104) under one key, for one thread ({@link #copy} for another): two SHA-256
 * digests that took the key's inner and outer pads once, copied for each hash. {@link
 * javax.crypto.Mac} feeds both pads again for every value, two of the four SHA-256 blocks a short
 * value's hash takes; copying a digest costs less than a block. The bytes are those {@code Mac}
 * gives ({@code KeyedHmacTest}).
 */
final class KeyedHmac {

  static final byte[] NOTHING = {};

  private static final int BLOCK_BYTES = 64;

  private final MessageDigest inner;
  private final MessageDigest outer;

  KeyedHmac(byte[] key) {
    byte[] block = Arrays.copyOf(key.length > BLOCK_BYTES ? sha256().digest(key) : key, BLOCK_BYTES);
    byte[] innerPad = new byte[BLOCK_BYTES];
    byte[] outerPad = new byte[BLOCK_BYTES];
    for (int i = 0; i < BLOCK_BYTES; i++) {
      innerPad[i] = (byte) (block[i] ^ 0x36);
      outerPad[i] = (byte) (block[i] ^ 0x5c);
    }
    inner = sha256();
    inner.update(innerPad);
    outer = sha256();
    outer.update(outerPad);
    Arrays.fill(block, (byte) 0);
    Arrays.fill(innerPad, (byte) 0);
    Arrays.fill(outerPad, (byte) 0);
  }

  private KeyedHmac(MessageDigest inner, MessageDigest outer) {
    this.inner = inner;
    this.outer = outer;
  }

  /** A copy for another thread. */
  KeyedHmac copy() {
    return new KeyedHmac(copyOf(inner), copyOf(outer));
  }

  /** The HMAC of {@code head}, {@code body[offset, offset + length)} and {@code tail}, one after the other. */
  byte[] mac(byte[] head, byte[] body, int offset, int length, byte[] tail) {
    MessageDigest digest = copyOf(inner);
    digest.update(head);
    digest.update(body, offset, length);
    digest.update(tail);
    byte[] innerHash = digest.digest();
    digest = copyOf(outer);
    digest.update(innerHash);
    return digest.digest();
  }

  private static MessageDigest copyOf(MessageDigest keyed) {
    try {
      return (MessageDigest) keyed.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("this JVM's SHA-256 cannot be copied, which field hashing needs", e);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available on this JVM", e);
    }
  }
}
