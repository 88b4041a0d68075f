package io.mongocdc.workflows.model;

import java.util.ArrayList;
import java.util.List;
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

  /** The one field a body may hold. */
  static final String CANCEL_IN_FLIGHT = "cancelInFlight";

  /**
   * Reads the body of a {@code pause} or {@code terminate} signal as the data converter decoded
   * it. The signal takes it raw so that a body of the wrong shape reaches the workflow, which
   * reports it, instead of being dropped by the SDK.
   *
   * @param signal the signal's name, to start the reason with
   * @param body null (no body, or JSON {@code null}) or the decoded JSON value
   * @throws IllegalArgumentException naming the signal and every problem, if the body is not
   *     nothing or an object holding at most {@code cancelInFlight} as true, false or null
   */
  public static StopRequest fromJson(String signal, Object body) {
    if (body == null) {
      return AT_BATCH_BOUNDARY;
    }
    if (!(body instanceof Map<?, ?> fields)) {
      throw new IllegalArgumentException(signal + ": the body must be a JSON object such as {\"" + CANCEL_IN_FLIGHT
          + "\": true}, or nothing, got " + JsonText.of(body));
    }
    List<String> problems = new ArrayList<>();
    for (Object field : fields.keySet()) {
      if (!CANCEL_IN_FLIGHT.equals(field)) {
        problems.add("unknown field " + JsonText.of(String.valueOf(field)) + " (the body may only hold \""
            + CANCEL_IN_FLIGHT + "\")");
      }
    }
    Object cancel = fields.get(CANCEL_IN_FLIGHT);
    if (cancel != null && !(cancel instanceof Boolean)) {
      problems.add("\"" + CANCEL_IN_FLIGHT + "\" must be true or false, got " + JsonText.of(cancel));
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(signal + ": " + String.join("; ", problems));
    }
    // A null cancelInFlight is the same as leaving it out, as it always was.
    return Boolean.TRUE.equals(cancel) ? new StopRequest(true) : AT_BATCH_BOUNDARY;
  }
}
