package io.mongocdc.faults;

import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.CheckpointCommit;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorStateChange;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The real checkpoint catalog (one for the test JVM, each scenario under its own mirror name),
 * with the plan's faults at a commit (it fails before or after it is stored); at each commit it has
 * the oracle check the delivered prefix, tracks the stored checkpoint, and sends the signals the
 * plan puts at that commit.
 */
final class FaultyCheckpointCatalog implements CheckpointCatalog {

  private final Scenario scenario;

  FaultyCheckpointCatalog(Scenario scenario) {
    this.scenario = scenario;
  }

  @Override
  public Optional<StreamPosition> register(MirrorConfig m) {
    return SuiteCatalog.checkpoints().register(m);
  }

  @Override
  public boolean recordState(MirrorStateChange change) {
    return SuiteCatalog.checkpoints().recordState(change);
  }

  @Override
  public long committedBatchId(String m) {
    return SuiteCatalog.checkpoints().committedBatchId(m);
  }

  @Override
  public void setAside(String m, long batchId, io.mongocdc.pipeline.PoisonEvent event) {
    SuiteCatalog.checkpoints().setAside(m, batchId, event);
  }

  @Override
  public List<io.mongocdc.ports.QuarantinedEvent> quarantined(String m) {
    return SuiteCatalog.checkpoints().quarantined(m);
  }

  @Override
  public void markReplayed(List<Long> ids) {
    SuiteCatalog.checkpoints().markReplayed(ids);
  }

  @Override
  public void refusedAgain(long id, String reason) {
    SuiteCatalog.checkpoints().refusedAgain(id, reason);
  }

  @Override
  public Optional<MirrorConfig> registered(String m) {
    return SuiteCatalog.checkpoints().registered(m);
  }

  @Override
  public void recordVisibleThrough(String m, java.time.Instant visibleThrough) {
    SuiteCatalog.checkpoints().recordVisibleThrough(m, visibleThrough);
  }

  @Override
  public void recordFailedAttempt(String m, long batchId, int attempt, String failureType, String message) {
    SuiteCatalog.checkpoints().recordFailedAttempt(m, batchId, attempt, failureType, message);
  }

  @Override
  public CheckpointCommit commit(String m, long batchId, StreamPosition checkpoint, BatchFigures figures) {
    int n = scenario.catalogCommits.incrementAndGet();
    if (FaultOptions.DEBUG) {
      System.err.println("DEBUG commit " + batchId + " " + figures);
    }
    scenario.oracle.checkDeliveredPrefix(checkpoint);
    if (n == scenario.faults.catalogFailAt && !scenario.faults.catalogFailAfterCommit) {
      scenario.count("fault: catalog commit fails before storing", 1);
      throw new IllegalStateException("injected: the catalog connection was lost");
    }
    CheckpointCommit result = SuiteCatalog.checkpoints().commit(m, batchId, checkpoint, figures);
    if (result.stored() instanceof StreamPosition.AfterToken after) {
      ResumeToken previous = scenario.stored;
      if (previous != null && after.token().compareTo(previous) < 0) {
        scenario.violations.add("the stored checkpoint moved back from " + previous + " to " + after.token());
      }
      scenario.stored = after.token();
    }
    if (n == scenario.faults.catalogFailAt) {
      scenario.count("fault: catalog commit fails after storing", 1);
      throw new IllegalStateException("injected: the catalog committed, then its reply was lost");
    }
    if (!scenario.ending) {
      signalsAtCommit(m, n);
    }
    return result;
  }

  private void signalsAtCommit(String m, int n) {
    CdcFlowWorkflow workflow = scenario.harness.client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(m));
    if (scenario.restorePauseAtNextCommit) {
      scenario.restorePauseAtNextCommit = false;
      Scenario.signal(() -> workflow.requestEdit(Map.of("controlEventPolicy", "PAUSE")));
    }
    Map<String, Object> edit = scenario.faults.editsAt.remove(n);
    if (edit != null) {
      Scenario.signal(() -> workflow.requestEdit(edit));
      scenario.count("fault: edit signal", 1);
    }
    scenario.sendRuleEdits(RuleEditPlan.When.COMMIT, n);
    if (n == scenario.faults.addAt && !scenario.addSent) {
      scenario.addCollection(workflow);
    }
    List<Object> storm = scenario.faults.stormsAt.remove(n);
    if (storm != null) {
      scenario.count("fault: signal storm", 1);
      for (Object s : storm) {
        if ("pause".equals(s)) {
          Scenario.signal(() -> workflow.pause(null));
          scenario.pausePending = true;
        } else if ("resume".equals(s)) {
          Scenario.signal(workflow::resume);
          scenario.pausePending = false;
        } else {
          @SuppressWarnings("unchecked")
          Map<String, Object> e = (Map<String, Object>) s;
          Scenario.signal(() -> workflow.requestEdit(e));
        }
        scenario.count("storm signals (pause, resume, edit)", 1);
      }
    }
  }

  @Override
  public Optional<StreamPosition> committed(String m) {
    return SuiteCatalog.checkpoints().committed(m);
  }

  @Override
  public String recordFieldHashKeyFingerprint(String m, String fingerprint) {
    return SuiteCatalog.checkpoints().recordFieldHashKeyFingerprint(m, fingerprint);
  }

  @Override
  public int rewriteQuarantined(String m, String rewriteId, io.mongocdc.source.ResumeToken after,
      io.mongocdc.source.ResumeToken upTo, java.util.function.UnaryOperator<io.mongocdc.pipeline.PoisonEvent> rewrite) {
    return SuiteCatalog.checkpoints().rewriteQuarantined(m, rewriteId, after, upTo, rewrite);
  }

  @Override
  public void recordFieldRuleRewrite(String m, String state, long rows) {
    SuiteCatalog.checkpoints().recordFieldRuleRewrite(m, state, rows);
  }

  @Override
  public java.util.Optional<io.mongocdc.workflows.model.FieldRulesWritten> fieldRulesWritten(String m) {
    return SuiteCatalog.checkpoints().fieldRulesWritten(m);
  }

  @Override
  public void recordFieldRuleRewriteProgress(String m, io.mongocdc.workflows.model.FieldRuleRewrite rewrite) {
    SuiteCatalog.checkpoints().recordFieldRuleRewriteProgress(m, rewrite);
  }

  @Override
  public void forget(String m) {
    SuiteCatalog.checkpoints().forget(m);
  }
}
