package io.mongocdc.workflows.model;

/**
 * What one AlignTypedColumns call did.
 *
 * @param rowsFilled rows whose typed columns it filled from {@code doc}
 * @param resumeAfter where the next call goes on ({@code <collection>} NUL {@code <key>}); null when
 *     every row holds its typed columns
 */
public record TypedColumnsAligned(long rowsFilled, String resumeAfter) {}
