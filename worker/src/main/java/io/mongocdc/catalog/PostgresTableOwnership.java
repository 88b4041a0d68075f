package io.mongocdc.catalog;

import io.mongocdc.ports.MirrorTable;
import io.mongocdc.ports.TableOwnedByAnotherMirrorException;
import io.mongocdc.ports.TableOwnership;
import java.util.List;

/** The tables' owners as the PostgreSQL catalog records them ({@code mirror_tables}). */
public final class PostgresTableOwnership implements TableOwnership {

  private final MirrorTableStore store;

  public PostgresTableOwnership(Catalog catalog) {
    this.store = catalog.mirrorTables();
  }

  @Override
  public void claim(String mirror, List<MirrorTable> tables) {
    store.claim(mirror, tables).ifPresent(taken -> {
      throw new TableOwnedByAnotherMirrorException(mirror, taken.owner(), taken.table());
    });
  }

  @Override
  public void requireAvailable(String mirror, List<MirrorTable> tables) {
    store.firstTaken(mirror, tables).ifPresent(taken -> {
      throw new TableOwnedByAnotherMirrorException(mirror, taken.owner(), taken.table());
    });
  }

  @Override
  public List<MirrorTable> tablesOf(String mirror) {
    return store.tablesOf(mirror);
  }

  @Override
  public String ownerOf(MirrorTable table) {
    return store.ownerOf(table).orElse(null);
  }
}
