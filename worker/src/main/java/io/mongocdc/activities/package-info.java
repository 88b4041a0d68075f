/**
 * Temporal activities of a mirror (setup, PullRecords, CommitCheckpoint) and the narrow ports
 * they need: {@link io.mongocdc.activities.MirrorSourceFactory} (the MongoDB side),
 * {@link io.mongocdc.activities.MirrorDestination} (the PostgreSQL tables),
 * {@link io.mongocdc.activities.CheckpointCatalog} (checkpoints and batch history) and
 * {@link io.mongocdc.activities.PeerRegistry} (peer names to credentials, on the worker only).
 *
 * <p>Activities classify every failure for Temporal (see {@link
 * io.mongocdc.activities.FailureClassifier}) and never put a credential into a failure, a
 * heartbeat or a result.
 */
package io.mongocdc.activities;
