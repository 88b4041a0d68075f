package io.mongocdc.workflows.model;

/**
 * Asks for a collection's snapshot plan: the plan stored in the catalog for this position, or a
 * new one (which replaces a plan for another position).
 *
 * @param mirror the mirror
 * @param collection the collection to plan
 * @param position the checkpoint the snapshot starts at
 */
public record SnapshotPlanRequest(MirrorConfig mirror, String collection, Checkpoint position) {}
