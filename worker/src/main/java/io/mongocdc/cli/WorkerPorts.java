package io.mongocdc.cli;

import io.mongocdc.activities.CheckpointCatalog;
import io.mongocdc.activities.MirrorDestination;
import io.mongocdc.activities.MirrorSourceFactory;
import io.mongocdc.activities.SnapshotCatalog;
import io.mongocdc.activities.TableOwnership;
import io.mongocdc.activities.VerifyCatalog;

/**
 * The port implementations a worker runs with.
 *
 * @param tables which mirror each destination table belongs to (the destination records its
 *     tables there; {@code mirror drop --drop-tables} reads it)
 * @param verifications the catalog's verify runs ({@code mirror verify})
 */
public record WorkerPorts(MirrorSourceFactory source, MirrorDestination destination, CheckpointCatalog catalog,
    SnapshotCatalog snapshots, TableOwnership tables, VerifyCatalog verifications) {

  /** Ports whose catalog keeps no verify runs. */
  public WorkerPorts(MirrorSourceFactory source, MirrorDestination destination, CheckpointCatalog catalog,
      SnapshotCatalog snapshots, TableOwnership tables) {
    this(source, destination, catalog, snapshots, tables, VerifyCatalog.NONE);
  }
}
