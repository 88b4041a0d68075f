package io.mongocdc.workflows.model;

/**
 * A new mirror's chosen start point, to check against the source's history before the mirror is
 * set up.
 *
 * @param mirror the mirror
 * @param start an operation time (inclusive), or after a resume token (its cluster time may be 0:
 *     the worker reads it from the token)
 */
public record StartPointRequest(MirrorConfig mirror, Checkpoint start) {}
