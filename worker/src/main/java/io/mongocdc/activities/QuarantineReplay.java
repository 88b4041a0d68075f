package io.mongocdc.activities;

import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.decode.MirrorColumns;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.QuarantinedEvent;
import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DecodedEvent;
import io.mongocdc.decode.SkippedEvent;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.pipeline.PoisonEvent;
import io.mongocdc.pipeline.RecordScreen;
import io.mongocdc.workflows.model.MirrorConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.RawBsonDocument;

/**
 * Applies a mirror's quarantined events again, once their cause is fixed: each is decoded again
 * if it was undecodable, asked of the destination's screen again, and written through a sink
 * like any batch, so a newer streamed event of the same document still wins (the position
 * rule). The applied ones are marked replayed after the destination committed them; a refused
 * one stays quarantined with the reason it was refused this time. Running it twice applies
 * nothing twice: a replayed event is no longer pending, and one applied but not yet marked (a
 * crash between the two) is applied again without effect.
 */
public final class QuarantineReplay {

  /** What a replay did. */
  public record Result(int applied, int refused) {}

  private final MirrorDestination destination;
  private final CheckpointCatalog catalog;

  public QuarantineReplay(MirrorDestination destination, CheckpointCatalog catalog) {
    this.destination = Objects.requireNonNull(destination, "destination");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  public Result replay(MirrorConfig mirror) throws Exception {
    List<QuarantinedEvent> pending = catalog.quarantined(mirror.name());
    if (pending.isEmpty()) {
      return new Result(0, 0);
    }
    ChangeEventDecoder decoder = MirrorDecoder.of(mirror, destination);
    ColumnProjections columns = MirrorColumns.of(mirror, TranscodingJsonRenderer.relaxed());
    RecordScreen screen = destination.screen(mirror);
    List<ChangeRecord> records = new ArrayList<>();
    List<Long> applied = new ArrayList<>();
    int refused = 0;
    for (QuarantinedEvent quarantined : pending) {
      String refusal;
      DecodedEvent event = null;
      try {
        event = decoded(quarantined.event(), decoder, columns);
        refusal = event instanceof ChangeRecord record ? screen.refusal(record)
            : event instanceof SkippedEvent ? null
            : "it is not a data change (insert, update, replace or delete)";
      } catch (RuntimeException e) {
        refusal = e.getMessage();
      }
      if (refusal != null) {
        catalog.refusedAgain(quarantined.id(), refusal);
        refused++;
      } else {
        // An event of a type the mirror now passes over (unknownEventPolicy SKIP, or an excluded
        // type) is done with: nothing to write.
        if (event instanceof ChangeRecord record) {
          records.add(record);
        }
        applied.add(quarantined.id());
      }
    }
    if (!records.isEmpty()) {
      try (RecordSink sink = destination.openSink(mirror, 0)) {
        sink.write(records);
        sink.commit();
      }
    }
    if (!applied.isEmpty()) {
      catalog.markReplayed(applied);
    }
    return new Result(applied.size(), refused);
  }

  /**
   * What the event is: decoded again from its raw BSON, or the record as it was kept, with its typed
   * columns taken from the kept document as a backfill takes them.
   */
  private static DecodedEvent decoded(PoisonEvent event, ChangeEventDecoder decoder, ColumnProjections columns) {
    if (event.rawEvent() != null) {
      return decoder.decode(new RawBsonDocument(event.rawEvent()), event.position());
    }
    DocumentProjector projector = event.document() == null ? null : columns.of(event.source());
    return ChangeRecord.builder().operation(event.operation()).source(event.source()).table(event.table())
        .key(event.key()).document(event.document()).position(event.position()).commitTime(event.commitTime())
        .typed(projector == null ? null : projector.project(RawBsonDocument.parse(event.document())))
        .build();
  }
}
