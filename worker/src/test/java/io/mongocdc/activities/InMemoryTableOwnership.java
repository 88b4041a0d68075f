package io.mongocdc.activities;

import io.mongocdc.ports.MirrorTable;
import io.mongocdc.ports.TableOwnedByAnotherMirrorException;
import io.mongocdc.ports.TableOwnership;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Table owners in memory, with the contract of the catalog's {@code mirror_tables}. */
public final class InMemoryTableOwnership implements TableOwnership {

  private record Key(String peer, String schema, String table) {
    static Key of(MirrorTable table) {
      return new Key(table.destinationPeer(), table.schema(), table.table());
    }
  }

  private record Owned(String mirror, MirrorTable table) {}

  private final Map<Key, Owned> owners = new LinkedHashMap<>();

  @Override
  public synchronized void claim(String mirror, List<MirrorTable> tables) {
    requireAvailable(mirror, tables);
    tables.forEach(table -> owners.putIfAbsent(Key.of(table), new Owned(mirror, table)));
  }

  @Override
  public synchronized void requireAvailable(String mirror, List<MirrorTable> tables) {
    for (MirrorTable table : tables) {
      Owned owned = owners.get(Key.of(table));
      if (owned != null && !owned.mirror().equals(mirror)) {
        throw new TableOwnedByAnotherMirrorException(mirror, owned.mirror(), owned.table());
      }
    }
  }

  @Override
  public synchronized List<MirrorTable> tablesOf(String mirror) {
    List<MirrorTable> tables = new ArrayList<>();
    owners.values().stream().filter(o -> o.mirror().equals(mirror)).forEach(o -> tables.add(o.table()));
    return tables;
  }

  @Override
  public synchronized String ownerOf(MirrorTable table) {
    Owned owned = owners.get(Key.of(table));
    return owned == null ? null : owned.mirror();
  }

  /** What the catalog's forgetMirror does to the mirror's tables. */
  public synchronized void forget(String mirror) {
    owners.values().removeIf(o -> o.mirror().equals(mirror));
  }
}
