/**
 * Temporal activities of a mirror (setup, PullRecords, CommitCheckpoint) and the narrow ports
 * they need: {@link io.mongocdc.ports.MirrorSourceFactory} (the MongoDB side),
 * {@link io.mongocdc.ports.MirrorDestination} (the PostgreSQL tables),
 * {@link io.mongocdc.ports.CheckpointCatalog} (checkpoints and batch history) and
 * {@link io.mongocdc.ports.PeerRegistry} (peer names to credentials, on the worker only).
 *
 * <p>Activities classify every failure for Temporal (see {@link
 * io.mongocdc.activities.FailureClassifier}) and never put a credential into a failure, a
 * heartbeat or a result.
 */
package io.mongocdc.activities;
