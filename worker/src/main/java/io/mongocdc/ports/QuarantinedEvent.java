package io.mongocdc.ports;

import io.mongocdc.pipeline.PoisonEvent;

/**
 * One row of {@code quarantined_events}.
 *
 * @param id the row's id
 * @param event what is known of the event, as it was set aside
 * @param replayAttempts how often {@code replay-quarantine} tried it and it was refused again
 */
public record QuarantinedEvent(long id, PoisonEvent event, int replayAttempts) {}
