package io.mongocdc.workflows.model;

/**
 * A phase change of a mirror's workflow, for the catalog's {@code mirrors} row.
 *
 * <p>{@code atMillis} (the workflow's clock) and {@code sequence} (the workflow's count of
 * changes, carried across continue-as-new) order the changes: the catalog applies one only if it
 * is newer than the one it holds, so a retried or late write never shows an older state.
 *
 * @param mirror the mirror's name
 * @param phase the phase the workflow entered
 * @param reason why it is paused or failed, in one line; null otherwise
 * @param lastError the last failure, redacted, when the phase is BACKING_OFF or FAILED; null otherwise
 * @param failureType the last failure's type (see {@code FailureTypes}), with {@code lastError}
 * @param failedAttempts consecutive failed attempts, with {@code lastError}
 * @param atMillis the workflow's time of the change
 * @param sequence the workflow's count of changes (1, 2, ...)
 * @param config the mirror with the settings in effect
 * @param startedFrom where the mirror's stream started (see {@link CarriedState#startedFrom}); null
 *     when not known, which leaves the catalog's record of it as it is
 * @param fieldRulesWritten what the rows the mirror wrote hold under its field rules; null before
 *     set-up (a mirror created again must not lose the record of the rows it wrote before) and in
 *     histories from before it was recorded, which leaves the catalog's record as it is
 */
public record MirrorStateChange(
    String mirror,
    MirrorPhase phase,
    String reason,
    String lastError,
    String failureType,
    int failedAttempts,
    long atMillis,
    long sequence,
    MirrorConfig config,
    Checkpoint startedFrom,
    FieldRulesWritten fieldRulesWritten) {}
