package io.mongocdc.cli;

import io.mongocdc.activities.CheckpointCatalog;
import io.mongocdc.activities.MirrorDestination;
import io.mongocdc.activities.MirrorSourceFactory;
import io.mongocdc.activities.SnapshotCatalog;
import io.mongocdc.activities.TableOwnership;

/**
 * The port implementations a worker runs with.
 *
 * @param tables which mirror each destination table belongs to (the destination records its
 *     tables there; {@code mirror drop --drop-tables} reads it)
 */
public record WorkerPorts(MirrorSourceFactory source, MirrorDestination destination, CheckpointCatalog catalog,
    SnapshotCatalog snapshots, TableOwnership tables) {}
