package io.mongocdc.source;

/**
 * A change event exceeded MongoDB's 16 MiB document limit (10334 BSONObjectTooLarge), typically
 * an update whose pre- and post-images together are too large. Not retryable as is: enable
 * {@code splitLargeEvents} (servers 6.0.9+ / 7.0+) so the server splits such events and the
 * source reassembles them.
 */
public class OversizedEventException extends ChangeStreamException {

  public static final int SERVER_CODE = 10334;

  public OversizedEventException(String message, Throwable cause) {
    super(message, SERVER_CODE, false, cause);
  }
}
