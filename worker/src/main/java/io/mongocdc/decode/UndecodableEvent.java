package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;
import java.util.Objects;

/**
 * A change event the decoder could not turn into a record, kept whole so it can be set aside
 * with its raw BSON and decoded again later (see {@code poisonEventPolicy}).
 *
 * @param position the event's resume token
 * @param rawEvent the change event's BSON bytes, as read from the stream
 * @param reason why it could not be decoded
 */
public record UndecodableEvent(ResumeToken position, byte[] rawEvent, String reason) implements DecodedEvent {

  public UndecodableEvent {
    Objects.requireNonNull(position, "position");
    Objects.requireNonNull(rawEvent, "rawEvent");
    Objects.requireNonNull(reason, "reason");
  }
}
