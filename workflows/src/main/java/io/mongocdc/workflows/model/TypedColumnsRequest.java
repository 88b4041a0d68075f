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
 * @param refillColumns per collection, typed columns whose cells are emptied (with their drift)
 *     before the fill, because the mirror did not maintain them as {@code mirror} defines them
 *     ({@link TypedColumnSettings#changedSince}); empty for none, and in requests recorded before
 *     it existed
 * @param removedColumns per collection, typed columns {@code mirror} no longer has
 *     ({@link TypedColumnSettings#removedSince}): their entries leave the rows' {@code _drift};
 *     empty for none, and in requests recorded before it existed
 */
public record TypedColumnsRequest(MirrorConfig mirror, Map<String, List<String>> dropColumns, String resumeAfter,
    Map<String, List<String>> refillColumns, Map<String, List<String>> removedColumns) {

  public TypedColumnsRequest {
    dropColumns = dropColumns == null ? Map.of() : DeterministicMaps.sorted(dropColumns);
    refillColumns = refillColumns == null ? Map.of() : DeterministicMaps.sorted(refillColumns);
    removedColumns = removedColumns == null ? Map.of() : DeterministicMaps.sorted(removedColumns);
  }

  /**
   * The first call of the alignment of {@code after}, the mirror with its edits, from {@code
   * before}: columns dropped, emptied and forgotten in {@code _drift}, then the fill from the start.
   */
  public static TypedColumnsRequest first(MirrorConfig before, MirrorConfig after,
      Map<String, List<String>> dropColumns) {
    TypedColumnSettings from = before.settings().columns();
    TypedColumnSettings to = after.settings().columns();
    return new TypedColumnsRequest(after, dropColumns, null, to.changedSince(from), to.removedSince(from));
  }

  /** A later call: the fill goes on where the previous call stopped. */
  public static TypedColumnsRequest resume(MirrorConfig mirror, String resumeAfter) {
    return new TypedColumnsRequest(mirror, Map.of(), resumeAfter, Map.of(), Map.of());
  }
}
