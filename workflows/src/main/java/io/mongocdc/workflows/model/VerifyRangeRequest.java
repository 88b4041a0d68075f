package io.mongocdc.workflows.model;

/**
 * Asks a worker to judge one range of a verify run.
 *
 * @param request the run's request (mirror, repair, read rate)
 * @param runId the run
 * @param range the range's number in the run's plan
 */
public record VerifyRangeRequest(VerifyRequest request, long runId, int range) {}
