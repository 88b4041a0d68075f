package io.mongocdc.workflows.model;

import java.util.Map;

/**
 * The optional body of the {@code pause} and {@code terminate} signals.
 *
 * @param cancelInFlight cancel the batch in flight instead of letting it finish; its records
 *     replay from the committed checkpoint later (the destination applies them idempotently)
 */
public record StopRequest(boolean cancelInFlight) {

  /** What a signal without a body means: finish the batch in flight first. */
  public static final StopRequest AT_BATCH_BOUNDARY = new StopRequest(false);

  /**
   * Reads the body of a {@code pause} or {@code terminate} signal as the data converter decoded
   * it. The signal takes it raw so that a body of the wrong shape reaches the workflow, which
   * reports it, instead of being dropped by the SDK.
   *
   * <p>A body is bound exactly as the SDK bound it before (Temporal's Jackson configuration, with
   * its leniency: {@code null} is false, {@code 1} and {@code "true"} are true), so every signal in
   * a running mirror's history that was acted on is acted on the same way on replay; only the
   * ones the SDK dropped are now rejected, which changes no command.
   *
   * @param signal the signal's name, to start the reason with
   * @param body null (no body, or JSON {@code null}) or the decoded JSON value
   * @throws IllegalArgumentException naming the signal and what is wrong with the body
   */
  public static StopRequest fromJson(String signal, Object body) {
    if (body == null) {
      return AT_BATCH_BOUNDARY;
    }
    try {
      return JsonInput.read(body, StopRequest.class, "the body");
    } catch (IllegalArgumentException e) {
      String problem = body instanceof Map<?, ?> ? e.getMessage()
          : "the body must be a JSON object such as {\"cancelInFlight\": true}, or nothing, got " + JsonText.of(body);
      throw new IllegalArgumentException(signal + ": " + problem);
    }
  }
}
