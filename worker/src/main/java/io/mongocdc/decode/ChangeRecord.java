package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;
import java.time.Instant;
import java.util.Objects;

/**
 * One data change, ready for the destination.
 *
 * @param operation insert, update, replace or delete
 * @param source the namespace the event came from
 * @param table the destination table (resolved from {@code source})
 * @param key the document's {@code _id} rendered as key text (see {@link KeyRenderer})
 * @param document the full document as JSON; null for a delete, and for an update whose
 *     post-image was not available (the document was deleted before the lookup ran)
 * @param position the event's resume token
 * @param commitTime the event's {@code wallTime}, or its cluster time where there is none
 * @param sourceBytes the size of the raw change event in bytes
 */
public record ChangeRecord(
    Operation operation,
    Namespace source,
    String table,
    String key,
    String document,
    ResumeToken position,
    Instant commitTime,
    int sourceBytes)
    implements DecodedEvent {

  public ChangeRecord {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(position, "position");
    Objects.requireNonNull(commitTime, "commitTime");
  }
}
