package io.mongocdc.workflows.model;

/**
 * Asks for a collection's snapshot plan: the plan stored in the catalog for this position, or a
 * new one (which replaces a plan for another position).
 *
 * @param mirror the mirror
 * @param collection the collection to plan
 * @param position the checkpoint the snapshot starts at
 * @param fresh plan again even if a plan for this position is stored ({@code resyncCollections}
 *     copies a collection again, possibly from the position its last copy started at); false in
 *     older histories
 */
public record SnapshotPlanRequest(MirrorConfig mirror, String collection, Checkpoint position, boolean fresh) {}
