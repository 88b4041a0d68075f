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
 * @param documentBefore the document as it was before the change ({@code
 *     fullDocumentBeforeChange}) as JSON; null when the stream carried none (pre-images off, not
 *     recorded for the collection, or an insert), or when the table keeps no history
 * @param updateDescription an update's {@code updateDescription} (updated and removed fields,
 *     truncated arrays) as JSON; null for other operations, and when the table keeps no history
 * @param typed the values of the table's typed columns, extracted from {@code document}; null when
 *     the table has none, or there is no document
 */
public record ChangeRecord(
    Operation operation,
    Namespace source,
    String table,
    String key,
    String document,
    ResumeToken position,
    Instant commitTime,
    int sourceBytes,
    String documentBefore,
    String updateDescription,
    TypedValues typed)
    implements DecodedEvent {

  public ChangeRecord {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(position, "position");
    Objects.requireNonNull(commitTime, "commitTime");
  }

  /** A builder with nothing set: no pre-image, update description or typed values unless set. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a record, one named field at a time. */
  public static final class Builder {
    private Operation operation;
    private Namespace source;
    private String table;
    private String key;
    private String document;
    private ResumeToken position;
    private Instant commitTime;
    private int sourceBytes;
    private String documentBefore;
    private String updateDescription;
    private TypedValues typed;

    private Builder() {}

    public Builder operation(Operation value) {
      operation = value;
      return this;
    }

    public Builder source(Namespace value) {
      source = value;
      return this;
    }

    public Builder table(String value) {
      table = value;
      return this;
    }

    public Builder key(String value) {
      key = value;
      return this;
    }

    public Builder document(String value) {
      document = value;
      return this;
    }

    public Builder position(ResumeToken value) {
      position = value;
      return this;
    }

    public Builder commitTime(Instant value) {
      commitTime = value;
      return this;
    }

    public Builder sourceBytes(int value) {
      sourceBytes = value;
      return this;
    }

    public Builder documentBefore(String value) {
      documentBefore = value;
      return this;
    }

    public Builder updateDescription(String value) {
      updateDescription = value;
      return this;
    }

    public Builder typed(TypedValues value) {
      typed = value;
      return this;
    }

    public ChangeRecord build() {
      return new ChangeRecord(operation, source, table, key, document, position, commitTime, sourceBytes,
          documentBefore, updateDescription, typed);
    }
  }

  /** A builder holding this record's fields, to build one that differs in a few. */
  public Builder toBuilder() {
    return builder().operation(operation).source(source).table(table).key(key).document(document).position(position)
        .commitTime(commitTime).sourceBytes(sourceBytes).documentBefore(documentBefore)
        .updateDescription(updateDescription).typed(typed);
  }
}
