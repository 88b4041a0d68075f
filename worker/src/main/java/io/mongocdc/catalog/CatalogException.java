package io.mongocdc.catalog;

/** The catalog cannot be used as it is: the message says why and what an operator can do. */
public class CatalogException extends RuntimeException {

  public CatalogException(String message) {
    super(message);
  }

  public CatalogException(String message, Throwable cause) {
    super(message, cause);
  }
}
