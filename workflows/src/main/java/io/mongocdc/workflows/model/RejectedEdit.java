package io.mongocdc.workflows.model;

/**
 * An edit that arrived by signal and was not applied.
 *
 * @param atMillis workflow time it arrived, epoch milliseconds
 * @param request the edit as received
 * @param reason why it was rejected
 */
public record RejectedEdit(long atMillis, String request, String reason) {}
