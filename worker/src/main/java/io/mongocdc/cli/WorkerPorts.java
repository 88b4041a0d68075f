package io.mongocdc.cli;

import io.mongocdc.activities.CheckpointCatalog;
import io.mongocdc.activities.MirrorDestination;
import io.mongocdc.activities.MirrorSourceFactory;
import io.mongocdc.activities.SnapshotCatalog;

/** The port implementations a worker runs with. */
public record WorkerPorts(
    MirrorSourceFactory source, MirrorDestination destination, CheckpointCatalog catalog, SnapshotCatalog snapshots) {}
