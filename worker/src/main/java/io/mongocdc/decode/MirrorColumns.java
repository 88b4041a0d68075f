package io.mongocdc.decode;

import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.TypedColumn;
import io.mongocdc.workflows.model.TypedColumnSettings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The typed columns of a mirror's tables, by its {@code columns} setting: one rule for the decoder,
 * the snapshot copy, the sink and the backfill, so each writes the same columns with the same
 * conversions.
 */
public final class MirrorColumns {

  private MirrorColumns() {}

  /** The projections of each collection's declared columns, rendering {@code jsonb} as {@code renderer} renders doc. */
  public static ColumnProjections of(MirrorConfig mirror, DocumentRenderer renderer) {
    TypedColumnSettings settings = mirror.settings().columns();
    if (settings.columns().isEmpty()) {
      return ColumnProjections.NONE;
    }
    Map<String, DocumentProjector> byCollection = new HashMap<>();
    settings.columns().forEach((collection, columns) ->
        byCollection.put(collection, new DocumentProjector(projections(columns), renderer)));
    return ns -> ns.database().equals(mirror.sourceDatabase()) && ns.collection() != null
        ? byCollection.get(ns.collection()) : null;
  }

  /** A collection's declared columns as projections. */
  private static List<ColumnProjection> projections(List<TypedColumn> columns) {
    return columns.stream()
        .map(c -> new ColumnProjection(c.name(), ColumnType.of(c.type()), c.segments()))
        .toList();
  }
}
