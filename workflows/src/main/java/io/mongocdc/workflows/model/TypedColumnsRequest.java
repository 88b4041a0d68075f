package io.mongocdc.workflows.model;

import java.util.List;
import java.util.Map;

/**
 * What the AlignTypedColumns activity does for a mirror.
 *
 * @param mirror the mirror, with the typed columns in effect from now
 * @param dropColumns per collection, removed typed columns whose data an operator asked to drop
 *     ({@code dropColumnData}); empty for none
 * @param resumeAfter where a previous call stopped ({@link TypedColumnsAligned#resumeAfter}); null
 *     to add and drop the columns, then fill from the first table's first row
 */
public record TypedColumnsRequest(MirrorConfig mirror, Map<String, List<String>> dropColumns, String resumeAfter) {

  public TypedColumnsRequest {
    dropColumns = dropColumns == null ? Map.of() : DeterministicMaps.sorted(dropColumns);
  }
}
