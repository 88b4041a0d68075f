package io.mongocdc.faults;

/**
 * An activity attempt running in this process.
 *
 * @param activity the workflow run and activity id, the same for every attempt of one activity
 * @param sequence the order attempts started in, over the scenario
 */
record Running(String type, long batchId, String activity, int attempt, long sequence) {}
