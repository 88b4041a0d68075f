package io.mongocdc.ports;

import java.util.List;

/**
 * The catalog's record of which mirror each destination table belongs to. A table has one
 * owner: a mirror records it before creating it, and is refused a table recorded for another
 * mirror, so two mirrors never write one table.
 */
public interface TableOwnership {

  /**
   * Records {@code tables} as {@code mirror}'s, all or none; a table already the mirror's is
   * kept as it is.
   *
   * @throws TableOwnedByAnotherMirrorException if one of them is another mirror's (none is recorded)
   */
  void claim(String mirror, List<MirrorTable> tables);

  /**
   * Checks, without recording anything, that none of {@code tables} is another mirror's.
   *
   * @throws TableOwnedByAnotherMirrorException naming the first that is
   */
  void requireAvailable(String mirror, List<MirrorTable> tables);

  /** The tables recorded for {@code mirror}. */
  List<MirrorTable> tablesOf(String mirror);

  /** The mirror {@code table} is recorded for, or null if none. */
  String ownerOf(MirrorTable table);
}
