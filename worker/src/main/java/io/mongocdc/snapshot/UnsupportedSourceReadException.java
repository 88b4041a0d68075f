package io.mongocdc.snapshot;

/**
 * The source cannot serve this kind of read (by {@code _id}, or a sample), so the mirror cannot
 * use what asks for it; retrying will not help. Classified like an invalid mirror configuration.
 */
public final class UnsupportedSourceReadException extends RuntimeException {

  public UnsupportedSourceReadException(String message) {
    super(message);
  }
}
