package io.mongocdc.privacy;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The secret key of a worker's {@code hash} field rules. It comes from the worker's environment
 * ({@value #ENVIRONMENT_VARIABLE}) or its peers file ({@value #PEERS_FILE_KEY}), never from a
 * workflow input, and appears in no output: {@link #toString} hides it, and what a mirror records
 * is its {@link #fingerprint}, from which the key cannot be recovered.
 */
public final class HashKey {

  public static final String ENVIRONMENT_VARIABLE = "MONGO_CDC_FIELD_HASH_KEY";
  public static final String PEERS_FILE_KEY = "fieldHashKey";
  /** Bytes a key must have at least: 16 is 128 bits, the least an HMAC key should carry. */
  public static final int MIN_BYTES = 16;

  private static final byte[] FINGERPRINT_INPUT = "mongo-cdc field hash key fingerprint".getBytes(StandardCharsets.UTF_8);

  private final String fingerprint;
  /**
   * Each thread's own copy, as a digest holds the state of the hash it runs. The key's bytes are
   * not kept, only those digests.
   */
  private final ThreadLocal<KeyedHmac> hmacs;

  private HashKey(byte[] bytes) {
    KeyedHmac keyed = new KeyedHmac(bytes);
    this.hmacs = ThreadLocal.withInitial(keyed::copy);
    this.fingerprint = HexFormat.of().formatHex(sha256(keyed.mac(
        KeyedHmac.NOTHING, FINGERPRINT_INPUT, 0, FINGERPRINT_INPUT.length, KeyedHmac.NOTHING))).substring(0, 16);
  }

  /**
   * The key whose bytes are the UTF-8 of {@code text} (as given, so every worker given the same
   * text agrees).
   *
   * @throws IllegalArgumentException naming {@code source} (never the text) when it is too short
   */
  public static HashKey of(String text, String source) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length < MIN_BYTES) {
      throw new IllegalArgumentException(source + " holds " + bytes.length + " bytes; a field hash key needs at least "
          + MIN_BYTES + " (for example 64 hex characters from 'openssl rand -hex 32')");
    }
    return new HashKey(bytes);
  }

  /**
   * A key made of 32 random bytes, as hex: for a process that hashes only for itself ({@code dev},
   * a sample no one keeps), whose hashes need not match any other's.
   */
  public static HashKey random(String source) {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return of(HexFormat.of().formatHex(bytes), source);
  }

  /** 16 hex characters that tell keys apart, and tell nothing of the key. */
  public String fingerprint() {
    return fingerprint;
  }

  /** The HMAC-SHA-256 of {@code head}, {@code body[offset, offset + length)} and {@code tail}, one after the other. */
  byte[] mac(byte[] head, byte[] body, int offset, int length, byte[] tail) {
    return hmacs.get().mac(head, body, offset, length, tail);
  }

  /** The HMAC-SHA-256 of {@code input}: 32 bytes. */
  byte[] mac(byte[] input, int offset, int length) {
    return hmacs.get().mac(KeyedHmac.NOTHING, input, offset, length, KeyedHmac.NOTHING);
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String toString() {
    return "HashKey[fingerprint " + fingerprint + "]";
  }
}
