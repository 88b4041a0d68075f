/**
 * The ports the activities use and the adapters implement: the source ({@link
 * io.mongocdc.ports.MirrorSourceFactory}), the destination ({@link
 * io.mongocdc.ports.MirrorDestination}, {@link io.mongocdc.ports.DestinationRows}), the catalog
 * ({@link io.mongocdc.ports.CheckpointCatalog}, {@link io.mongocdc.ports.SnapshotCatalog},
 * {@link io.mongocdc.ports.VerifyCatalog}, {@link io.mongocdc.ports.TableOwnership}, {@link
 * io.mongocdc.ports.QuarantineLog}, {@link io.mongocdc.ports.FailedAttemptLog}) and the worker's
 * peers ({@link io.mongocdc.ports.PeerRegistry}), with the records they exchange and the
 * exceptions adapters throw for the activities to classify. It depends on the pipeline and the
 * seams below it, never on an adapter, the activities or the wiring.
 */
package io.mongocdc.ports;
