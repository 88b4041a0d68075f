/**
 * The composition root: builds a worker's ports ({@link io.mongocdc.wiring.PortsFactory}, {@link
 * io.mongocdc.wiring.ProductionPorts}), picks each mirror's source by its peer's scheme ({@link
 * io.mongocdc.wiring.SourcesByPeerScheme} over the registered {@link
 * io.mongocdc.wiring.SourceScheme}s) and registers the workflows and activities on a Temporal
 * worker ({@link io.mongocdc.wiring.WorkerWiring}).
 */
package io.mongocdc.wiring;
