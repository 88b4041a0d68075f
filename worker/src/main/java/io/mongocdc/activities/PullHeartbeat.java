package io.mongocdc.activities;

import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.TableFigures;
import java.util.Map;

/**
 * The details of a PullRecords heartbeat: what is durably delivered so far, so a retry of the
 * same batch resumes after it instead of replaying it, and where the attempt spends its time.
 *
 * @param batchId the batch
 * @param delivered the delivered checkpoint
 * @param eventsRead events read by the attempt that sent it
 * @param recordsDelivered records delivered by this batch so far, over all its attempts
 * @param attempt the activity attempt that sent it
 * @param stageMillis the attempt's stage timings so far in milliseconds, by stage name (see
 *     {@code StageTimings}); null in heartbeats of workers before it existed
 * @param tables what the batch delivered per destination table so far, over all its attempts;
 *     null in heartbeats of workers before it existed
 * @param firstPosition the resume token of the batch's first delivered record, null before one
 * @param recordsQuarantined poison events the batch set aside so far, over all its attempts (0 in
 *     heartbeats of workers before it existed)
 * @param historyRowsAppended history rows the batch's committed transactions appended so far, over
 *     all its attempts (0 in heartbeats of workers before it existed)
 * @param eventsSkipped events the batch passed over so far, per operation type, over all its attempts
 *     (null in heartbeats of workers before it existed)
 * @param visibleThroughMillis the source commit time of the newest change this attempt made
 *     visible in the destination (epoch milliseconds), for {@code mirror status} while the batch
 *     runs; null before one, and in heartbeats of workers before it existed
 * @param waitingSinceMillis when the attempt began to wait for its destination connections (epoch
 *     milliseconds), while it waits; null once it has them, and in heartbeats of workers before it
 *     existed
 */
public record PullHeartbeat(
    long batchId, Checkpoint delivered, long eventsRead, long recordsDelivered, int attempt,
    Map<String, Long> stageMillis, Map<String, TableFigures> tables, String firstPosition,
    long recordsQuarantined, long historyRowsAppended, Long visibleThroughMillis, Map<String, Long> eventsSkipped,
    Long waitingSinceMillis) {

  /** These details, waiting for destination connections since {@code millis}. */
  public PullHeartbeat waitingSince(long millis) {
    return new PullHeartbeat(batchId, delivered, eventsRead, recordsDelivered, attempt, stageMillis, tables,
        firstPosition, recordsQuarantined, historyRowsAppended, visibleThroughMillis, eventsSkipped, millis);
  }

  /** A builder with nothing set: nothing delivered, read or timed yet. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a heartbeat's details, one named field at a time. */
  public static final class Builder {
    private long batchId;
    private Checkpoint delivered;
    private long eventsRead;
    private long recordsDelivered;
    private int attempt;
    private Map<String, Long> stageMillis;
    private Map<String, TableFigures> tables;
    private String firstPosition;
    private long recordsQuarantined;
    private long historyRowsAppended;
    private Long visibleThroughMillis;
    private Map<String, Long> eventsSkipped;

    private Builder() {}

    public Builder eventsSkipped(Map<String, Long> value) {
      eventsSkipped = value;
      return this;
    }

    public Builder batchId(long value) {
      batchId = value;
      return this;
    }

    public Builder delivered(Checkpoint value) {
      delivered = value;
      return this;
    }

    public Builder eventsRead(long value) {
      eventsRead = value;
      return this;
    }

    public Builder recordsDelivered(long value) {
      recordsDelivered = value;
      return this;
    }

    public Builder attempt(int value) {
      attempt = value;
      return this;
    }

    public Builder stageMillis(Map<String, Long> value) {
      stageMillis = value;
      return this;
    }

    public Builder tables(Map<String, TableFigures> value) {
      tables = value;
      return this;
    }

    public Builder firstPosition(String value) {
      firstPosition = value;
      return this;
    }

    public Builder recordsQuarantined(long value) {
      recordsQuarantined = value;
      return this;
    }

    public Builder historyRowsAppended(long value) {
      historyRowsAppended = value;
      return this;
    }

    public Builder visibleThroughMillis(Long value) {
      visibleThroughMillis = value;
      return this;
    }

    public PullHeartbeat build() {
      return new PullHeartbeat(batchId, delivered, eventsRead, recordsDelivered, attempt, stageMillis, tables,
          firstPosition, recordsQuarantined, historyRowsAppended, visibleThroughMillis, eventsSkipped, null);
    }
  }
}
