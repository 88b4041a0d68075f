package io.mongocdc.workflows.model;

/**
 * What the catalog holds after a commit.
 *
 * @param stored the mirror's checkpoint in the catalog after the commit
 * @param advanced false if the commit was for an older batch and left the checkpoint as it was
 */
public record CommitResult(Checkpoint stored, boolean advanced) {}
