package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.decode.UndecodableEvent;
import io.mongocdc.source.ResumeToken;
import java.time.Instant;
import java.util.Objects;

/**
 * An event that cannot be applied as it is: a record the destination cannot hold, or an event
 * the decoder cannot read. Whatever is known of it is kept, so it can be set aside and applied
 * later without reading the stream again.
 *
 * @param position the event's resume token
 * @param source its namespace; null when it could not be decoded
 * @param table the destination table it was meant for; null when it could not be decoded
 * @param key its {@code _id} as key text; null when it could not be decoded
 * @param operation its operation; null when it could not be decoded
 * @param document its document as JSON; null for deletes and undecodable events
 * @param commitTime its commit time; null when it could not be decoded
 * @param rawEvent the change event's BSON; null when it was decoded
 * @param reason why it cannot be applied
 */
public record PoisonEvent(
    ResumeToken position,
    Namespace source,
    String table,
    String key,
    Operation operation,
    String document,
    Instant commitTime,
    byte[] rawEvent,
    String reason) {

  /** Keys longer than this are cut in messages: a poison key may be kilobytes long. */
  private static final int KEY_SHOWN = 80;
  /** Positions too: an ordinary resume token is 100 to 200 characters, one with a huge key far more. */
  private static final int POSITION_SHOWN = 240;

  public PoisonEvent {
    Objects.requireNonNull(position, "position");
    Objects.requireNonNull(reason, "reason");
  }

  /** A decoded record the destination refused, for {@code reason}. */
  public static PoisonEvent refused(ChangeRecord record, String reason) {
    return new PoisonEvent(record.position(), record.source(), record.table(), record.key(), record.operation(),
        record.document(), record.commitTime(), null, reason);
  }

  static PoisonEvent undecodable(UndecodableEvent event) {
    return new PoisonEvent(event.position(), null, null, null, null, null, null, event.rawEvent(), event.reason());
  }

  /** One line naming the event for operators: position, namespace, {@code _id} and reason. */
  public String describe() {
    StringBuilder text = new StringBuilder("event at ").append(shorten(position.data(), POSITION_SHOWN));
    if (source != null) {
      text.append(" in ").append(source.fullName());
    }
    if (key != null) {
      text.append(" with _id ").append(shorten(key, KEY_SHOWN));
    }
    return text.append(": ").append(reason).toString();
  }

  /**
   * A key or position as shown in messages: whole if short, else its start and its length (a
   * resume token holds the event's {@code _id}, so a huge key makes a huge token; its start, the
   * cluster time, is what places it).
   */
  static String shorten(String text, int shown) {
    return text.length() <= shown ? text : text.substring(0, shown) + "... (" + text.length() + " characters)";
  }
}
