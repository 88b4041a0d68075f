package io.mongocdc.wiring;

import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.SnapshotCatalog;
import io.mongocdc.ports.TableOwnership;
import io.mongocdc.ports.VerifyCatalog;

/**
 * The port implementations a worker runs with.
 *
 * @param tables which mirror each destination table belongs to (the destination records its
 *     tables there; {@code mirror drop --drop-tables} reads it)
 * @param verifications the catalog's verify runs ({@code mirror verify})
 */
public record WorkerPorts(MirrorSourceFactory source, MirrorDestination destination, CheckpointCatalog catalog,
    SnapshotCatalog snapshots, TableOwnership tables, VerifyCatalog verifications) {
}
