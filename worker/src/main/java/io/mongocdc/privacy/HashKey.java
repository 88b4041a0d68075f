package io.mongocdc.privacy;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

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

  private static final String ALGORITHM = "HmacSHA256";
  private static final byte[] FINGERPRINT_INPUT = "mongo-cdc field hash key fingerprint".getBytes(StandardCharsets.UTF_8);

  private final SecretKeySpec key;
  private final String fingerprint;
  private final ThreadLocal<Mac> macs;

  private HashKey(byte[] bytes) {
    this.key = new SecretKeySpec(bytes, ALGORITHM);
    this.macs = ThreadLocal.withInitial(this::newMac);
    this.fingerprint = HexFormat.of().formatHex(sha256(macs.get().doFinal(FINGERPRINT_INPUT))).substring(0, 16);
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
    Mac mac = macs.get();
    mac.update(head);
    mac.update(body, offset, length);
    mac.update(tail);
    return mac.doFinal();
  }

  /** The HMAC-SHA-256 of {@code input}: 32 bytes. */
  byte[] mac(byte[] input, int offset, int length) {
    Mac mac = macs.get();
    mac.update(input, offset, length);
    return mac.doFinal();
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA-256 is not available on this JVM", e);
    }
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
