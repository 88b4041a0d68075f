package io.mongocdc.workflows.model;

/**
 * The answer to a {@code resync} update: the mirror copies every collection again from a new
 * starting point once the work before it is done.
 *
 * @param afterBatch the last batch before the resync (the one in flight, if any, finishes first)
 * @param pendingEdits accepted edits that take effect first, so the copy follows them
 * @param fieldRuleRewrite the rewrite of rows written before added field rules, which finishes
 *     before the copy; null when none is under way
 */
public record ResyncAccepted(long afterBatch, int pendingEdits, String fieldRuleRewrite) {}
