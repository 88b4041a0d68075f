package io.mongocdc.workflows.model;

/**
 * Asks a worker to delete the rows of a collection's table that a resync's copy did not see:
 * those whose position is older than the copy's.
 *
 * @param mirror the mirror
 * @param collection the collection
 * @param position the starting point the copy was made at
 */
public record SweepRequest(MirrorConfig mirror, String collection, Checkpoint position) {}
