package io.mongocdc.cli;

import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.ports.MirrorTable;
import io.mongocdc.workflows.model.MirrorConfig;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code mirror drop --drop-tables} removes, read from the catalog before anything changes:
 * the tables recorded for the mirror, plus (for a mirror set up before the catalog recorded its
 * tables) the tables its configured collections map to, unless another mirror owns them.
 *
 * @param registered whether the catalog has the mirror's row
 * @param tables the tables to drop, each once
 */
record TablesToDrop(boolean registered, List<MirrorTable> tables) {

  static TablesToDrop of(String mirror, WorkerPorts ports) {
    Optional<MirrorConfig> config = ports.catalog().registered(mirror);
    List<MirrorTable> tables = new ArrayList<>(ports.tables().tablesOf(mirror));
    if (config.isPresent()) {
      for (MirrorTable planned : ports.destination().plannedTables(config.get())) {
        String owner = ports.tables().ownerOf(planned);
        boolean known = tables.stream().anyMatch(planned::sameTable);
        // A table recorded for another mirror is never dropped, whatever this mirror's configuration says.
        if (!known && (owner == null || owner.equals(mirror))) {
          tables.add(planned);
        }
      }
    }
    return new TablesToDrop(config.isPresent(), List.copyOf(tables));
  }

  /** The destination peers the tables are on. */
  Set<String> destinationPeers() {
    Set<String> peers = new LinkedHashSet<>();
    tables.forEach(table -> peers.add(table.destinationPeer()));
    return peers;
  }

  boolean nothing() {
    return !registered && tables.isEmpty();
  }
}
