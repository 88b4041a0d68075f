package io.mongocdc.cli;

import io.mongocdc.activities.CheckpointCatalog;
import io.mongocdc.activities.MirrorDestination;
import io.mongocdc.activities.MirrorSourceFactory;

/** The port implementations a worker runs with. */
public record WorkerPorts(MirrorSourceFactory source, MirrorDestination destination, CheckpointCatalog catalog) {}
