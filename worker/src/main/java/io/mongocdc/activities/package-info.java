/**
 * Temporal activities of a mirror (setup, snapshot, PullRecords, CommitCheckpoint, typed columns,
 * verify, state records), over the ports of {@code io.mongocdc.ports}: {@link io.mongocdc.ports.MirrorSourceFactory} (the MongoDB side),
 * {@link io.mongocdc.ports.MirrorDestination} (the PostgreSQL tables),
 * {@link io.mongocdc.ports.CheckpointCatalog} (checkpoints and batch history) and
 * {@link io.mongocdc.ports.PeerRegistry} (peer names to credentials, on the worker only).
 *
 * <p>Every failure reaches Temporal classified (see {@link
 * io.mongocdc.activities.FailureClassifier}), by {@link
 * io.mongocdc.activities.ActivityFailureInterceptor} on every worker; activities never put a
 * credential into a failure, a heartbeat or a result.
 */
package io.mongocdc.activities;
