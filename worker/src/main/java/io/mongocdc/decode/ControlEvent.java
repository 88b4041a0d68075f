package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;
import java.time.Instant;
import java.util.Objects;

/**
 * A change event that changes the stream rather than a document: a collection dropped or
 * renamed, a database dropped, or the stream invalidated. Never turned into a record; the
 * pipeline acts on it as the mirror's {@code ControlEventPolicy} says.
 *
 * @param type the event's kind
 * @param namespace the namespace it concerns; null for an invalidate
 * @param renamedTo for a rename, the new namespace; null otherwise
 * @param position the event's resume token
 * @param commitTime the event's wall time, or its cluster time
 */
public record ControlEvent(
    Type type, Namespace namespace, Namespace renamedTo, ResumeToken position, Instant commitTime)
    implements DecodedEvent {

  public ControlEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(position, "position");
  }

  /** The kinds of control event, by their {@code operationType}. */
  public enum Type {
    DROP("drop"),
    RENAME("rename"),
    DROP_DATABASE("dropDatabase"),
    INVALIDATE("invalidate");

    private final String operationType;

    Type(String operationType) {
      this.operationType = operationType;
    }

    public String operationType() {
      return operationType;
    }

    /** The control type for an {@code operationType}, or null if it is not a control event. */
    public static Type fromOperationType(String operationType) {
      for (Type type : values()) {
        if (type.operationType.equals(operationType)) {
          return type;
        }
      }
      return null;
    }
  }

  /** One line for logs and status: what happened, where, at which position. */
  public String describe() {
    StringBuilder text = new StringBuilder(type.operationType());
    if (namespace != null) {
      text.append(" of ").append(namespace.fullName());
    }
    if (renamedTo != null) {
      text.append(" to ").append(renamedTo.fullName());
    }
    return text.append(" at ").append(position).toString();
  }
}
