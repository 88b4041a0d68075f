package io.mongocdc.activities;

import io.mongocdc.privacy.FieldRedactor;
import io.mongocdc.snapshot.DocumentCursor;
import java.util.Objects;
import org.bson.RawBsonDocument;

/** A snapshot cursor whose documents come with their collection's field rules applied. */
final class RedactingCursor implements DocumentCursor {

  private final DocumentCursor cursor;
  private final FieldRedactor redactor;

  private RedactingCursor(DocumentCursor cursor, FieldRedactor redactor) {
    this.cursor = cursor;
    this.redactor = redactor;
  }

  /** {@code cursor} with {@code redactor}'s rules applied; itself when {@code redactor} is null (no rules). */
  static DocumentCursor of(DocumentCursor cursor, FieldRedactor redactor) {
    return redactor == null ? cursor : new RedactingCursor(Objects.requireNonNull(cursor, "cursor"), redactor);
  }

  @Override
  public RawBsonDocument next() {
    RawBsonDocument document = cursor.next();
    return document == null ? null : redactor.document(document);
  }

  @Override
  public void close() {
    cursor.close();
  }
}
