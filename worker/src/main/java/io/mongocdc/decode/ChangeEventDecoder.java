package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.bson.RawBsonDocument;

/**
 * Turns one raw change event into a {@link ChangeRecord} or a {@link ControlEvent}.
 *
 * <p>Runs on the decode pool, so it may be called from several threads at once; it holds no
 * mutable state. An operation type it does not know is an error naming the type, position and
 * namespace, never a silently dropped or null record, unless the mirror asked to pass over it
 * ({@link #skippingTypes}), when it becomes a counted {@link SkippedEvent}.
 *
 * <p>For the collections whose table keeps a change history, it also renders the event's pre-image
 * ({@code fullDocumentBeforeChange}) and an update's {@code updateDescription}; for the others it
 * leaves them unread, so history costs nothing where it is off.
 */
public final class ChangeEventDecoder {

  private final DocumentRenderer documentRenderer;
  private final KeyRenderer keyRenderer;
  private final DestinationTableResolver tableResolver;
  private final Predicate<Namespace> keepsHistory;
  private final ColumnProjections projections;
  private final Predicate<String> skipsType;
  private final UnaryOperator<RawBsonDocument> redaction;

  /**
   * @param keepsHistory whether a collection's table keeps a change history, so its records carry
   *     the pre-image and update description ({@code ns -> false} for none)
   * @param projections the typed columns of each namespace's table, extracted from the post-image
   *     here, in the decode pool ({@link ColumnProjections#NONE} for none)
   */
  public ChangeEventDecoder(
      DocumentRenderer documentRenderer,
      KeyRenderer keyRenderer,
      DestinationTableResolver tableResolver,
      Predicate<Namespace> keepsHistory,
      ColumnProjections projections) {
    this(documentRenderer, keyRenderer, tableResolver, keepsHistory, projections, type -> false,
        UnaryOperator.identity());
  }

  private ChangeEventDecoder(
      DocumentRenderer documentRenderer,
      KeyRenderer keyRenderer,
      DestinationTableResolver tableResolver,
      Predicate<Namespace> keepsHistory,
      ColumnProjections projections,
      Predicate<String> skipsType,
      UnaryOperator<RawBsonDocument> redaction) {
    this.redaction = Objects.requireNonNull(redaction, "redaction");
    this.skipsType = Objects.requireNonNull(skipsType, "skipsType");
    this.projections = Objects.requireNonNull(projections, "projections");
    this.documentRenderer = Objects.requireNonNull(documentRenderer, "documentRenderer");
    this.keyRenderer = Objects.requireNonNull(keyRenderer, "keyRenderer");
    this.tableResolver = Objects.requireNonNull(tableResolver, "tableResolver");
    this.keepsHistory = Objects.requireNonNull(keepsHistory, "keepsHistory");
  }

  /**
   * This decoder, passing over the events of the operation types {@code skipsType} accepts among
   * those it does not know (data and control events are always decoded).
   */
  public ChangeEventDecoder skippingTypes(Predicate<String> skipsType) {
    return new ChangeEventDecoder(documentRenderer, keyRenderer, tableResolver, keepsHistory, projections, skipsType,
        redaction);
  }

  /**
   * This decoder, with the mirror's field rules ({@code redaction}) to apply to each event read
   * from the stream before anything else sees it ({@link #redact}).
   */
  public ChangeEventDecoder redacting(UnaryOperator<RawBsonDocument> redaction) {
    return new ChangeEventDecoder(documentRenderer, keyRenderer, tableResolver, keepsHistory, projections, skipsType,
        redaction);
  }

  /**
   * The event as the mirror's field rules leave it: what {@link #decode} is given, and what is kept
   * of an event that cannot be decoded.
   *
   * @throws IllegalArgumentException if the rules cannot be applied (malformed BSON)
   */
  public RawBsonDocument redact(RawBsonDocument event) {
    return redaction.apply(event);
  }

  /**
   * Decodes an event whose resume token the reader already extracted.
   *
   * @throws ChangeEventDecodeException naming the position if the event is malformed, of an
   *     unknown type it does not skip, or its document or key cannot be rendered
   */
  public DecodedEvent decode(RawBsonDocument event, ResumeToken position) {
    ChangeEventFields fields;
    try {
      fields = ChangeEventFields.read(event);
    } catch (RuntimeException e) {
      throw new ChangeEventDecodeException(position, "malformed change event: " + e.getMessage(), e);
    }
    if (fields.operationType == null) {
      throw new ChangeEventDecodeException(position, "no string field 'operationType'");
    }
    Operation operation = Operation.fromOperationType(fields.operationType);
    if (operation != null) {
      return decodeDataChange(fields, operation, position, event.getByteBuffer().remaining());
    }
    ControlEvent.Type controlType = ControlEvent.Type.fromOperationType(fields.operationType);
    if (controlType != null) {
      return new ControlEvent(
          controlType,
          controlType == ControlEvent.Type.INVALIDATE ? null : require(fields.ns, "ns", position),
          controlType == ControlEvent.Type.RENAME ? require(fields.to, "to", position) : null,
          position,
          commitTime(fields, position));
    }
    if (skipsType.test(fields.operationType)) {
      return new SkippedEvent(position, fields.operationType);
    }
    throw new ChangeEventDecodeException(position, "unknown operationType '" + fields.operationType + "'"
        + (fields.ns == null ? "" : " on " + fields.ns) + ": set unknownEventPolicy to SKIP to pass over events"
        + " of types the mirror does not know, or exclude this one (--exclude-operations " + fields.operationType
        + ")");
  }

  private ChangeRecord decodeDataChange(
      ChangeEventFields fields, Operation operation, ResumeToken position, int sourceBytes) {
    Namespace ns = require(fields.ns, "ns", position);
    if (fields.documentKey == null || !fields.documentKey.containsKey("_id")) {
      throw new ChangeEventDecodeException(
          position, operation.operationType() + " on " + ns + " has no documentKey._id");
    }
    String key;
    String document = null;
    String documentBefore = null;
    String updateDescription = null;
    TypedValues typed = null;
    try {
      key = keyRenderer.renderIdOf(fields.documentKey);
      if (operation != Operation.DELETE) {
        if (fields.fullDocument != null) {
          document = documentRenderer.render(fields.fullDocument);
          DocumentProjector projector = projections.of(ns);
          if (projector != null) {
            typed = projector.project(fields.fullDocument);
          }
        } else if (operation != Operation.UPDATE) {
          // An update's post-image may be missing (the document was deleted before the lookup);
          // an insert or replace always carries its document.
          throw new ChangeEventDecodeException(
              position, operation.operationType() + " on " + ns + " has no fullDocument");
        }
      }
      if (keepsHistory.test(ns)) {
        if (fields.fullDocumentBeforeChange != null) {
          documentBefore = documentRenderer.render(fields.fullDocumentBeforeChange);
        }
        if (operation == Operation.UPDATE && fields.updateDescription != null) {
          updateDescription = documentRenderer.render(fields.updateDescription);
        }
      }
    } catch (DocumentRenderException e) {
      throw new ChangeEventDecodeException(
          position, operation.operationType() + " on " + ns + ": " + e.getMessage(), e);
    }
    return new ChangeRecord(operation, ns, tableResolver.tableFor(ns), key, document, position,
        commitTime(fields, position), sourceBytes, documentBefore, updateDescription, typed);
  }

  private static Namespace require(Namespace namespace, String field, ResumeToken position) {
    if (namespace == null) {
      throw new ChangeEventDecodeException(position, "no '" + field + "' namespace document with a string db");
    }
    return namespace;
  }

  private static Instant commitTime(ChangeEventFields fields, ResumeToken position) {
    Instant at = commitTimeOrNull(fields);
    if (at == null) {
      throw new ChangeEventDecodeException(position, "neither wallTime nor clusterTime present");
    }
    return at;
  }

  /**
   * When the source committed a raw change event, as its record's commit time says: its {@code
   * wallTime}, or its cluster time where it has none; null with neither.
   */
  public static Instant commitTimeOf(RawBsonDocument event) {
    return commitTimeOrNull(ChangeEventFields.read(event));
  }

  private static Instant commitTimeOrNull(ChangeEventFields fields) {
    if (fields.wallTimeMillis != null) {
      return Instant.ofEpochMilli(fields.wallTimeMillis);
    }
    return fields.clusterTime == null ? null : Instant.ofEpochSecond(fields.clusterTime.getTime());
  }
}
