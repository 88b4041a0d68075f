package io.mongocdc.decode;

/** A document or key that cannot be rendered; the message says why. */
public class DocumentRenderException extends RuntimeException {

  public DocumentRenderException(String message) {
    super(message);
  }

  public DocumentRenderException(String message, Throwable cause) {
    super(message, cause);
  }
}
