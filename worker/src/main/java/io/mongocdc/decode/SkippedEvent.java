package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;
import java.util.Objects;

/**
 * A change event of a type the mirror does not apply and passes over: one the mirror does not
 * know under {@code unknownEventPolicy} SKIP, or one whose type {@code excludedOperations} names.
 * The checkpoint moves past it; nothing reaches the destination.
 *
 * @param position the event's resume token
 * @param operationType the event's {@code operationType}
 */
public record SkippedEvent(ResumeToken position, String operationType) implements DecodedEvent {

  public SkippedEvent {
    Objects.requireNonNull(position, "position");
    Objects.requireNonNull(operationType, "operationType");
  }
}
