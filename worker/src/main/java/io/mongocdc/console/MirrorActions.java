package io.mongocdc.console;

/**
 * What the console's buttons do to a mirror. Each returns what to tell the operator, or throws
 * {@link ActionRefusedException} with the reason the mirror's workflow gave.
 */
public interface MirrorActions {

  /** Pause at the end of the batch in flight (as {@code mongo-cdc mirror pause}). */
  String pause(String mirror);

  /** Resume a paused or failed mirror (as {@code mongo-cdc mirror resume}). */
  String resume(String mirror);

  /** Start a verify run of the mirror, or say one runs already (as {@code mongo-cdc mirror verify}). */
  String verify(String mirror);

  /**
   * Send an edit, a JSON object as {@code mongo-cdc mirror edit} and the Temporal CLI send it,
   * through the workflow's {@code edit} update: its validator refuses a bad edit with the reason.
   */
  String edit(String mirror, String json);
}
