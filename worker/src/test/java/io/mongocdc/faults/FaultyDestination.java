package io.mongocdc.faults;

import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.GiveWay;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.MirrorTable;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.MirrorConfig;
import io.temporal.activity.Activity;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The real PostgreSQL destination with the plan's sink faults (a write or a commit fails); it puts
 * the oracle's backwards trigger on every table it creates, counts what stale attempts write, and
 * sends the rule edits planned during a batch.
 */
final class FaultyDestination implements MirrorDestination {
  private final Scenario scenario;
  private final MirrorDestination real;

  FaultyDestination(Scenario scenario, MirrorDestination real) {
    this.scenario = scenario;
    this.real = real;
  }

  @Override
  public void validate(MirrorConfig m) {
    real.validate(m);
  }

  /** Creates the tables, then the oracle's trigger on each destination table. */
  @Override
  public List<String> createTables(MirrorConfig m) {
    List<String> tables = real.createTables(m);
    try (Connection c = scenario.lane.destinationData.getConnection(); Statement st = c.createStatement()) {
      for (String collection : m.collections()) {
        st.execute("create or replace trigger faults_backwards before update on " + scenario.tableOf(collection)
            + " for each row execute function public.faults_backwards()");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot install the oracle's trigger", e);
    }
    return tables;
  }

  @Override
  public DestinationTableResolver tableResolver(MirrorConfig m) {
    return real.tableResolver(m);
  }

  @Override
  public int applyLanes(MirrorConfig m) {
    return real.applyLanes(m);
  }

  /**
   * The real copy sink, which gives way to the batches' locks (LockYieldingSink): the copies run
   * beside the batches here as they do in a worker. Its writes are not the batch faults' to count.
   */
  @Override
  public RecordSink openCopySink(MirrorConfig m, GiveWay giveWay) {
    return real.openCopySink(m, giveWay);
  }

  @Override
  public RecordSink openSink(MirrorConfig m, long batchId) {
    // Opened on the activity's thread: which attempt of which batch this sink writes for.
    int attempt = Activity.getExecutionContext().getInfo().getAttempt();
    RecordSink sink = real.openSink(m, batchId);
    return new RecordSink() {
      private boolean stale() {
        return scenario.latestPullAttempt.getOrDefault(batchId, attempt) > attempt;
      }

      @Override
      public void write(List<ChangeRecord> records) throws Exception {
        int n = scenario.sinkWrites.incrementAndGet();
        // A rule edit while the batch is in flight: it waits for the batch's end.
        scenario.sendRuleEdits(RuleEditPlan.When.SINK_WRITE, n);
        if (n == scenario.faults.sinkWriteFailAt) {
          scenario.count("fault: sink write fails", 1);
          throw new SQLException("injected: I/O error while writing to the destination", "08006");
        }
        if (stale()) {
          scenario.count("writes by a stale attempt after its retry started", 1);
        }
        sink.write(records);
      }

      @Override
      public void commit() throws Exception {
        if (scenario.sinkCommits.incrementAndGet() == scenario.faults.sinkCommitFailAt) {
          scenario.count("fault: sink commit fails", 1);
          throw new SQLException("injected: connection lost during commit", "08006");
        }
        if (stale()) {
          scenario.count("commits by a stale attempt after its retry started", 1);
        }
        sink.commit();
      }

      @Override
      public long historyRowsCommitted() {
        return sink.historyRowsCommitted();
      }

      @Override
      public void abort(Throwable cause) {
        sink.abort(cause);
      }

      @Override
      public void close() {
        sink.close();
      }
    };
  }

  /** The real rewrite of the rows written before a rule was added (the interface's default rewrites nothing). */
  @Override
  public FieldRuleRewrite rewriteFieldRules(MirrorConfig m, FieldRuleRewrite rewrite, ResumeToken after,
      ResumeToken upTo, MirrorRedaction added, Runnable progress) {
    return real.rewriteFieldRules(m, rewrite, after, upTo, added, progress);
  }

  @Override
  public List<MirrorTable> plannedTables(MirrorConfig m) {
    return real.plannedTables(m);
  }

  @Override
  public List<String> recordedCollections(MirrorConfig m) {
    return real.recordedCollections(m);
  }

  @Override
  public void checkReachable(String destinationPeer) {
    real.checkReachable(destinationPeer);
  }

  @Override
  public void dropTables(List<MirrorTable> tables) {
    real.dropTables(tables);
  }
}
