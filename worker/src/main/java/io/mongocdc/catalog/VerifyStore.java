package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.VERIFY_RANGES;
import static io.mongocdc.catalog.jooq.Tables.VERIFY_RUNS;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.ports.VerifyCatalog;
import io.mongocdc.catalog.jooq.tables.records.VerifyRangesRecord;
import io.mongocdc.catalog.jooq.tables.records.VerifyRunsRecord;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/** The activities' verify port on the PostgreSQL catalog ({@code verify_runs}, {@code verify_ranges}). */
public final class VerifyStore implements VerifyCatalog {

  private static final String DONE = "done";
  private static final String PENDING = "pending";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DSLContext dsl;

  public VerifyStore(Catalog catalog) {
    this.dsl = Objects.requireNonNull(catalog, "catalog").dsl();
  }

  @Override
  public Optional<StoredRun> run(String workflowRunId) {
    VerifyRunsRecord run = dsl.selectFrom(VERIFY_RUNS).where(VERIFY_RUNS.WORKFLOW_RUN_ID.eq(workflowRunId)).fetchOne();
    if (run == null) {
      return Optional.empty();
    }
    List<Integer> pending = dsl.select(VERIFY_RANGES.RANGE_NO).from(VERIFY_RANGES)
        .where(VERIFY_RANGES.RUN_ID.eq(run.getRunId()), VERIFY_RANGES.STATE.eq(PENDING))
        .orderBy(VERIFY_RANGES.RANGE_NO)
        .fetch(VERIFY_RANGES.RANGE_NO);
    return Optional.of(new StoredRun(run.getRunId(), run.getRangesTotal(), pending, skipped(run)));
  }

  @Override
  public StoredRun storeRun(String mirror, String workflowRunId, boolean repair, List<PlannedRange> ranges,
      List<String> skippedCollections) {
    dsl.transaction(configuration -> {
      DSLContext tx = configuration.dsl();
      Long runId = tx.insertInto(VERIFY_RUNS)
          .set(VERIFY_RUNS.MIRROR_NAME, mirror)
          .set(VERIFY_RUNS.WORKFLOW_RUN_ID, workflowRunId)
          .set(VERIFY_RUNS.REPAIR, repair)
          .set(VERIFY_RUNS.RANGES_TOTAL, ranges.size())
          .set(VERIFY_RUNS.SKIPPED_COLLECTIONS, String.join("\n", skippedCollections))
          .onConflict(VERIFY_RUNS.WORKFLOW_RUN_ID).doNothing()
          .returning(VERIFY_RUNS.RUN_ID)
          .fetchOptional(VERIFY_RUNS.RUN_ID)
          .orElse(null);
      if (runId == null) {
        return; // stored by an earlier attempt of the same activity
      }
      for (int i = 0; i < ranges.size(); i++) {
        tx.insertInto(VERIFY_RANGES)
            .set(VERIFY_RANGES.RUN_ID, runId)
            .set(VERIFY_RANGES.RANGE_NO, i)
            .set(VERIFY_RANGES.COLLECTION, ranges.get(i).collection())
            .set(VERIFY_RANGES.ID_RANGE, ranges.get(i).idRange())
            .execute();
      }
    });
    return run(workflowRunId).orElseThrow(() -> new IllegalStateException("the verify run was not stored"));
  }

  @Override
  public VerifiedRange range(long runId, int range) {
    VerifyRangesRecord row = dsl.selectFrom(VERIFY_RANGES)
        .where(VERIFY_RANGES.RUN_ID.eq(runId), VERIFY_RANGES.RANGE_NO.eq(range))
        .fetchOne();
    if (row == null) {
      throw new IllegalArgumentException("verify run " + runId + " has no range " + range);
    }
    return toRange(row);
  }

  @Override
  public void rangeStarted(long runId, int range) {
    dsl.update(VERIFY_RANGES)
        .set(VERIFY_RANGES.ATTEMPTS, VERIFY_RANGES.ATTEMPTS.plus(1))
        .set(VERIFY_RANGES.STARTED_AT, DSL.coalesce(VERIFY_RANGES.STARTED_AT, DSL.currentOffsetDateTime()))
        .where(VERIFY_RANGES.RUN_ID.eq(runId), VERIFY_RANGES.RANGE_NO.eq(range))
        .execute();
  }

  @Override
  public void rangeDone(long runId, int range, Verdict verdict) {
    dsl.update(VERIFY_RANGES)
        .set(VERIFY_RANGES.STATE, DONE)
        .set(VERIFY_RANGES.SOURCE_DOCUMENTS, verdict.sourceDocuments())
        .set(VERIFY_RANGES.SOURCE_HASH, verdict.sourceHash())
        .set(VERIFY_RANGES.DESTINATION_DOCUMENTS, verdict.destinationDocuments())
        .set(VERIFY_RANGES.DESTINATION_HASH, verdict.destinationHash())
        .set(VERIFY_RANGES.MISSING, verdict.missing())
        .set(VERIFY_RANGES.EXTRA, verdict.extra())
        .set(VERIFY_RANGES.DIFFERENT, verdict.different())
        .set(VERIFY_RANGES.UNSETTLED, verdict.unsettled())
        .set(VERIFY_RANGES.REPAIRED, verdict.repaired())
        .set(VERIFY_RANGES.SAMPLE_IDS, json(verdict.sampleIds()))
        .set(VERIFY_RANGES.FINISHED_AT, DSL.currentOffsetDateTime())
        .where(VERIFY_RANGES.RUN_ID.eq(runId), VERIFY_RANGES.RANGE_NO.eq(range), VERIFY_RANGES.STATE.eq(PENDING))
        .execute();
  }

  @Override
  public List<VerifiedRange> ranges(long runId) {
    return dsl.selectFrom(VERIFY_RANGES).where(VERIFY_RANGES.RUN_ID.eq(runId)).orderBy(VERIFY_RANGES.RANGE_NO)
        .fetch(VerifyStore::toRange);
  }

  @Override
  public FinishedRun finish(long runId) {
    dsl.update(VERIFY_RUNS)
        .set(VERIFY_RUNS.STATE, DONE)
        .set(VERIFY_RUNS.FINISHED_AT, DSL.coalesce(VERIFY_RUNS.FINISHED_AT, DSL.currentOffsetDateTime()))
        .where(VERIFY_RUNS.RUN_ID.eq(runId))
        .execute();
    VerifyRunsRecord run = dsl.selectFrom(VERIFY_RUNS).where(VERIFY_RUNS.RUN_ID.eq(runId)).fetchOne();
    OffsetDateTime start = run.getStartedAt();
    OffsetDateTime end = run.getFinishedAt();
    return new FinishedRun(Duration.between(start, end).toMillis() / 1000.0, skipped(run));
  }

  private static List<String> skipped(VerifyRunsRecord run) {
    String skipped = run.getSkippedCollections();
    return skipped == null || skipped.isEmpty() ? List.of() : Arrays.asList(skipped.split("\n"));
  }

  private static VerifiedRange toRange(VerifyRangesRecord row) {
    Verdict verdict = !DONE.equals(row.getState()) ? null : new Verdict(row.getSourceDocuments(), row.getSourceHash(),
        row.getDestinationDocuments(), row.getDestinationHash(), row.getMissing(), row.getExtra(), row.getDifferent(),
        row.getUnsettled(), row.getRepaired(), ids(row.getSampleIds()));
    return new VerifiedRange(row.getRangeNo(), row.getCollection(), row.getIdRange(), verdict);
  }

  private static String json(List<String> ids) {
    try {
      return JSON.writeValueAsString(ids);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> ids(String json) {
    if (json == null) {
      return List.of();
    }
    try {
      return JSON.readValue(json, new TypeReference<List<String>>() {});
    } catch (JsonProcessingException e) {
      return List.of();
    }
  }
}
