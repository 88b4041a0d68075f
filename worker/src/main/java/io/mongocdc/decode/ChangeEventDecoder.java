package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;
import java.time.Instant;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * Turns one raw change event into a {@link ChangeRecord} or a {@link ControlEvent}.
 *
 * <p>Runs on the decode pool, so it may be called from several threads at once; it holds no
 * mutable state. An operation type it does not know is an error, never a silently dropped or
 * null record.
 */
public final class ChangeEventDecoder {

  private final DocumentRenderer documentRenderer;
  private final KeyRenderer keyRenderer;
  private final DestinationTableResolver tableResolver;

  public ChangeEventDecoder(
      DocumentRenderer documentRenderer,
      KeyRenderer keyRenderer,
      DestinationTableResolver tableResolver) {
    this.documentRenderer = Objects.requireNonNull(documentRenderer, "documentRenderer");
    this.keyRenderer = Objects.requireNonNull(keyRenderer, "keyRenderer");
    this.tableResolver = Objects.requireNonNull(tableResolver, "tableResolver");
  }

  /**
   * Decodes an event whose resume token the reader already extracted.
   *
   * @throws ChangeEventDecodeException naming the position if the event is malformed, of an
   *     unknown type, or its document or key cannot be rendered
   */
  public DecodedEvent decode(RawBsonDocument event, ResumeToken position) {
    String operationType = stringField(event, "operationType", position);
    Operation operation = Operation.fromOperationType(operationType);
    if (operation != null) {
      return decodeDataChange(event, operation, position);
    }
    ControlEvent.Type controlType = ControlEvent.Type.fromOperationType(operationType);
    if (controlType != null) {
      return new ControlEvent(
          controlType,
          controlType == ControlEvent.Type.INVALIDATE ? null : namespace(event, "ns", position),
          controlType == ControlEvent.Type.RENAME ? namespace(event, "to", position) : null,
          position,
          commitTime(event, position));
    }
    throw new ChangeEventDecodeException(
        position, "unknown operationType '" + operationType + "'");
  }

  private ChangeRecord decodeDataChange(
      RawBsonDocument event, Operation operation, ResumeToken position) {
    Namespace ns = namespace(event, "ns", position);
    BsonValue documentKey = event.get("documentKey");
    if (documentKey == null || !documentKey.isDocument() || !documentKey.asDocument().containsKey("_id")) {
      throw new ChangeEventDecodeException(
          position, operation.operationType() + " on " + ns + " has no documentKey._id");
    }
    String key;
    String document = null;
    try {
      key = keyRenderer.renderIdOf(asRaw(documentKey.asDocument()));
      if (operation != Operation.DELETE) {
        BsonValue fullDocument = event.get("fullDocument");
        if (fullDocument != null && fullDocument.isDocument()) {
          document = documentRenderer.render(asRaw(fullDocument.asDocument()));
        } else if (operation != Operation.UPDATE) {
          // An update's post-image may be missing (the document was deleted before the lookup);
          // an insert or replace always carries its document.
          throw new ChangeEventDecodeException(
              position, operation.operationType() + " on " + ns + " has no fullDocument");
        }
      }
    } catch (DocumentRenderException e) {
      throw new ChangeEventDecodeException(
          position, operation.operationType() + " on " + ns + ": " + e.getMessage(), e);
    }
    return new ChangeRecord(
        operation,
        ns,
        tableResolver.tableFor(ns),
        key,
        document,
        position,
        commitTime(event, position),
        event.getByteBuffer().remaining());
  }

  private static RawBsonDocument asRaw(BsonDocument document) {
    // Sub-documents of a RawBsonDocument are RawBsonDocuments sharing its bytes; anything else
    // (a test building events by hand) is encoded once.
    return document instanceof RawBsonDocument raw ? raw : RawBsonDocument.parse(document.toJson());
  }

  private static String stringField(RawBsonDocument event, String name, ResumeToken position) {
    BsonValue value = event.get(name);
    if (value == null || !value.isString()) {
      throw new ChangeEventDecodeException(position, "no string field '" + name + "'");
    }
    return value.asString().getValue();
  }

  private static Namespace namespace(RawBsonDocument event, String field, ResumeToken position) {
    BsonValue value = event.get(field);
    if (value == null || !value.isDocument()) {
      throw new ChangeEventDecodeException(position, "no '" + field + "' namespace document");
    }
    BsonDocument ns = value.asDocument();
    BsonValue db = ns.get("db");
    if (db == null || !db.isString()) {
      throw new ChangeEventDecodeException(position, "'" + field + "' has no string db");
    }
    BsonValue coll = ns.get("coll");
    return new Namespace(
        db.asString().getValue(), coll != null && coll.isString() ? coll.asString().getValue() : null);
  }

  private static Instant commitTime(RawBsonDocument event, ResumeToken position) {
    BsonValue wallTime = event.get("wallTime");
    if (wallTime != null && wallTime.isDateTime()) {
      return Instant.ofEpochMilli(wallTime.asDateTime().getValue());
    }
    BsonValue clusterTime = event.get("clusterTime");
    if (clusterTime != null && clusterTime.isTimestamp()) {
      return Instant.ofEpochSecond(clusterTime.asTimestamp().getTime());
    }
    throw new ChangeEventDecodeException(position, "neither wallTime nor clusterTime present");
  }
}
