package io.mongocdc.privacy;

/** A mirror hashes fields and the worker has no key to hash them with. */
public final class MissingHashKeyException extends IllegalStateException {

  public MissingHashKeyException() {
    super("the mirror hashes fields (fieldRules) and this worker has no hash key: set " + HashKey.ENVIRONMENT_VARIABLE
        + " in its environment, or " + HashKey.PEERS_FILE_KEY + " in its peers file, to the same secret on every"
        + " worker (at least " + HashKey.MIN_BYTES + " bytes, e.g. from 'openssl rand -hex 32')");
  }
}
