package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.cli.CliContext;
import io.mongocdc.cli.MongoCdc;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.ManualClock;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.SnapshotProgress;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Field rules edited on a running mirror (issue 32, item 4), as the workflow runs them: an added
 * rule queues the rewrite of the rows written up to the checkpoint, with only the added rules;
 * rules cannot change while it runs; status and the catalog show it; a path hashed once cannot be
 * hashed again; and a worker without the hash key refuses a mirror that hashes before any table
 * exists.
 */
class FieldRulesWorkflowTest {

  private static final String KEY = "the key of the field rules workflow test";
  private static final int ORDERS = 20;

  private final ManualClock clock = new ManualClock();
  private final List<RawBsonDocument> events = events();
  private final ScriptedChangeStream stream =
      ScriptedChangeStream.builder().events(events).clock(clock, Duration.ofSeconds(1)).build();
  private final InMemoryDestination destination = new InMemoryDestination();
  private final InMemoryCatalog catalog = new InMemoryCatalog();
  @RegisterExtension
  final WorkflowTestExtension servers = WorkflowTestExtension.serversOnly();

  private static List<RawBsonDocument> events() {
    ChangeEvents changes = new ChangeEvents();
    List<RawBsonDocument> out = new ArrayList<>();
    for (int id = 0; id < ORDERS; id++) {
      out.add(changes.insert(Fixtures.ORDERS, new BsonDocument("_id", new BsonInt32(id))
          .append("email", new BsonString("c" + id + "@example.com"))));
    }
    return out;
  }

  private static MirrorConfig mirror(MirrorSettings base) {
    return Fixtures.orders(base.toBuilder().batchSize(1_000).idleTimeoutSeconds(3).decodeWorkers(2).chunkSize(4)
        .snapshot(SnapshotSettings.off()).build());
  }

  @Test
  void anAddedRuleRewritesUpToTheCheckpointWhileEditsWaitAndAPathHashedOnceIsNotHashedAgain() throws Exception {
    WorkerEnvironment flow = servers.start().startWorker(Fixtures.peersWithHashKey(KEY),
        Fixtures.inMemoryPorts(destination, catalog, stream), Fixtures.quickPulls(), clock);
    CdcFlowWorkflow workflow = flow.start(mirror(MirrorSettings.defaults()));
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(ORDERS - 1))::equals, Duration.ofSeconds(30));

    List<FieldRuleRewrite> asked = new CopyOnWriteArrayList<>();
    List<ResumeToken> upTo = java.util.Collections.synchronizedList(new ArrayList<>());
    CountDownLatch rewriting = new CountDownLatch(1);
    CountDownLatch rewritingUpTo = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch releaseUpTo = new CountDownLatch(1);
    destination.rewriteWith((rewrite, position) -> {
      asked.add(rewrite);
      upTo.add(position);
      (rewrite.after() != null ? rewriting : rewritingUpTo).countDown();
      try {
        assertTrue((rewrite.after() != null ? release : releaseUpTo).await(60, TimeUnit.SECONDS),
            "the test never released the rewrite");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return rewrite.finished(rewrite.rowsRewritten() + ORDERS);
    });
    workflow.edit(Map.of("fieldRules", Map.of("orders", Map.of("exclude", List.of("address"), "hash",
        List.of("email")))));
    assertTrue(rewriting.await(60, TimeUnit.SECONDS), "no rewrite was asked for");

    // First, before any batch, the rows a cancelled or failed batch may have written past the checkpoint.
    assertEquals(stream.tokenOf(ORDERS - 1).data(), asked.get(0).after().resumeToken(),
        "past the checkpoint the rules took effect at");
    assertEquals(null, upTo.get(0), "with no upper bound");
    assertEquals(Map.of("orders", new FieldRules(List.of("address"), List.of("email"))),
        asked.get(0).rules().collections());
    release.countDown();
    assertTrue(rewritingUpTo.await(60, TimeUnit.SECONDS), "no rewrite up to the checkpoint was asked for");
    assertTrue(catalog.fieldRuleRewrite("orders").contains("the rows up to it follow"),
        "the catalog does not call the rewrite done while the rows up to the checkpoint wait: "
            + catalog.fieldRuleRewrite("orders"));
    assertEquals(stream.tokenOf(ORDERS - 1), upTo.get(1), "up to the checkpoint the rules took effect at");
    assertEquals(asked.get(0).rules(), asked.get(1).rules());
    MirrorStatus during = workflow.status();
    assertTrue(during.fieldRuleRewrite() != null && during.fieldRuleRewrite().contains("rules [orders]"),
        String.valueOf(during.fieldRuleRewrite()));
    assertRejected(workflow, Map.of("removeFieldRules", Map.of("orders", List.of("address"))),
        "fieldRules: cannot change while the rows written before the last added rules are being rewritten");
    releaseUpTo.countDown();

    MirrorStatus after = WorkerEnvironment.awaitStatus(workflow, s -> s.fieldRuleRewrite() == null);
    assertEquals(MirrorPhase.RUNNING, after.state());
    assertEquals("null " + ORDERS, catalog.fieldRuleRewrite("orders"), "the catalog shows it done, with its rows");

    destination.rewriteWith((rewrite, position) -> {
      asked.add(rewrite);
      return rewrite.finished(0);
    });
    workflow.edit(Map.of("removeFieldRules", Map.of("orders", List.of("email"))));
    WorkerEnvironment.awaitStatus(workflow, s -> s.config().settings().fieldRules().of("orders").hash().isEmpty());
    assertRejected(workflow, Map.of("fieldRules", Map.of("orders", Map.of("hash", List.of("email")))),
        "'email' was hashed before");
    assertEquals(2, asked.size(), "removing a rule rewrites nothing");

    workflow.terminate(null);
    flow.result("orders");
    flow.captureWhenClosed("orders", "field-rule-rewrite");
  }

  /**
   * Issue 47, findings 2 and 3: {@code mirror resync} of a running mirror used to stop its
   * workflow and start a new run from a fresh state, which threw away the rewrite under way (the
   * rows written before the rule kept their values) and the edits not applied yet, without a word.
   * The running workflow resyncs in place now: the edits take effect first, the rewrite finishes
   * before the copy, and the operator is told both.
   */
  @Test
  void aFullResyncFinishesTheRewriteUnderWayAndAppliesThePendingEditsFirst() throws Exception {
    WorkerEnvironment flow = servers.start().startWorker(Fixtures.peersWithHashKey(KEY),
        Fixtures.inMemoryPorts(destination, catalog, stream), Fixtures.quickPulls(), clock);
    CdcFlowWorkflow workflow = flow.start(mirror(MirrorSettings.defaults()));
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(ORDERS - 1))::equals, Duration.ofSeconds(30));
    List<FieldRuleRewrite> asked = new CopyOnWriteArrayList<>();
    CountDownLatch rewriting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    destination.rewriteWith((rewrite, position) -> {
      asked.add(rewrite);
      rewriting.countDown();
      try {
        assertTrue(release.await(60, TimeUnit.SECONDS), "the test never released the rewrite");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return rewrite.finished(rewrite.rowsRewritten() + ORDERS);
    });
    workflow.edit(Map.of("fieldRules", Map.of("orders", Map.of("hash", List.of("email")))));
    assertTrue(rewriting.await(60, TimeUnit.SECONDS), "no rewrite was asked for");
    // The workflow is inside the rewrite's slice: this edit waits for the next turn.
    workflow.edit(Map.of("batchSize", 500));

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = MongoCdc.commandLine(new CliContext(options -> flow.client, (url, peers, sinks) -> null, Map.of(),
        stop -> stop.run())).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute("mirror", "resync", "orders");
    assertEquals(0, exit, err.toString());
    assertTrue(out.toString().contains("the 1 pending edit(s) take effect first"), out.toString());
    assertTrue(out.toString().contains("finishes before the copy"), out.toString());
    release.countDown();

    MirrorStatus after = WorkerEnvironment.awaitStatus(workflow, s -> s.fieldRuleRewrite() == null
        && s.config().settings().batchSize() == 500 && !s.snapshots().isEmpty()
        && s.snapshots().stream().allMatch(SnapshotProgress::done) && s.state() == MirrorPhase.RUNNING);
    assertEquals("null " + ORDERS, catalog.fieldRuleRewrite("orders"), "the catalog shows the rewrite done");
    assertEquals(2, asked.size(), "the rewrite (past the checkpoint, then up to it) went on, not again: " + asked);
    assertEquals(List.of("email"), after.config().settings().fieldRules().of("orders").hash());
    workflow.terminate(null);
    flow.result("orders");
    flow.captureWhenClosed("orders", "resync-by-update");
  }

  /**
   * Issue 47, finding 6, for edits: a mirror of every collection took an edit with rules for
   * {@code Users}, a collection the source does not have, and applied nothing to the rows of any.
   * The edit loses those rules when it applies, with the reason in status; the rest of it applies.
   */
  @Test
  void anEditOfAMirrorOfEveryCollectionLosesTheRulesOfACollectionTheSourceDoesNotHave() throws Exception {
    WorkerEnvironment flow = servers.start().startWorker(Fixtures.peersWithHashKey(KEY),
        Fixtures.inMemoryPorts(destination, catalog, stream), Fixtures.quickPulls(), clock);
    CdcFlowWorkflow workflow = flow.start(mirror(MirrorSettings.defaults()).withCollections(List.of()));
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(ORDERS - 1))::equals, Duration.ofSeconds(30));

    workflow.edit(Map.of("fieldRules", Map.of("Users", Map.of("hash", List.of("email"))), "batchSize", 500));
    MirrorStatus after = WorkerEnvironment.awaitStatus(workflow, s -> s.config().settings().batchSize() == 500);
    assertTrue(after.config().settings().fieldRules().isEmpty(), after.config().settings().fieldRules().toString());
    assertTrue(after.recentRejectedEdits().stream().anyMatch(rejected -> rejected.request().contains("Users")
        && rejected.reason().contains("'Users' is not a collection of shop")), after.recentRejectedEdits().toString());
    workflow.terminate(null);
    flow.result("orders");
  }

  /**
   * Issue 47, finding 7: a mirror dropped without its tables and created again with added field
   * rules resumed from the catalog's checkpoint and never rewrote the rows it wrote before, which
   * kept their values in clear. It rewrites them now, as an edit adding the rules would: the rows
   * its last batch may have committed past the checkpoint first, then those up to it.
   */
  @Test
  void aMirrorCreatedAgainWithAddedRulesRewritesTheRowsItWroteBefore() throws Exception {
    WorkerEnvironment flow = servers.start().startWorker(Fixtures.peersWithHashKey(KEY),
        Fixtures.inMemoryPorts(destination, catalog, stream), Fixtures.quickPulls(), clock);
    CdcFlowWorkflow first = flow.start(mirror(MirrorSettings.defaults()));
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(ORDERS - 1))::equals, Duration.ofSeconds(30));
    first.terminate(null);
    flow.result("orders");
    assertTrue(catalog.fieldRulesWritten("orders").isPresent(), "the catalog records what the rows hold");

    List<FieldRuleRewrite> asked = new CopyOnWriteArrayList<>();
    List<ResumeToken> upTo = java.util.Collections.synchronizedList(new ArrayList<>());
    destination.rewriteWith((rewrite, position) -> {
      asked.add(rewrite);
      upTo.add(position);
      return rewrite.finished(rewrite.rowsRewritten() + ORDERS);
    });
    CdcFlowWorkflow again = flow.start(mirror(hashing()));
    WorkerEnvironment.awaitStatus(again, s -> asked.size() >= 2 && s.fieldRuleRewrite() == null
        && s.state() == MirrorPhase.RUNNING);

    Map<String, FieldRules> added = Map.of("orders", new FieldRules(List.of(), List.of("email")));
    assertEquals(stream.tokenOf(ORDERS - 1).data(), asked.get(0).after().resumeToken(), "past the stored checkpoint");
    assertEquals(null, upTo.get(0));
    assertEquals(added, asked.get(0).rules().collections());
    assertEquals(stream.tokenOf(ORDERS - 1), upTo.get(1), "up to the stored checkpoint");
    assertEquals(added, asked.get(1).rules().collections());
    assertEquals(2, asked.size(), asked.toString());
    FieldRulesWritten recorded = catalog.fieldRulesWritten("orders").orElseThrow();
    assertEquals(List.of(), recorded.rewrites(), "the catalog holds no rewrite left to run");
    assertEquals(added, recorded.rules().collections());
    assertEquals(Map.of("orders", List.of("email")), recorded.hashedPaths());
    again.terminate(null);
    flow.result("orders");
    flow.captureWhenClosed("orders", "created-again-rewrites");
  }

  /**
   * Issue 47, finding 7, the mirror dropped before its first commit: its copy or a batch wrote rows,
   * but the catalog holds no checkpoint, so the mirror created again starts afresh. One rewrite up
   * to its new start takes every earlier row, before it writes any.
   */
  @Test
  void aMirrorCreatedAgainWithoutAStoredCheckpointRewritesEveryRowBeforeItsStart() throws Exception {
    WorkerEnvironment flow = servers.start().startWorker(Fixtures.peersWithHashKey(KEY),
        Fixtures.inMemoryPorts(destination, catalog, stream), Fixtures.quickPulls(), clock);
    CdcFlowWorkflow first = flow.start(mirror(MirrorSettings.defaults()));
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(ORDERS - 1))::equals, Duration.ofSeconds(30));
    first.terminate(null);
    flow.result("orders");
    catalog.forgetCheckpoint("orders");

    List<FieldRuleRewrite> asked = new CopyOnWriteArrayList<>();
    destination.rewriteWith((rewrite, position) -> {
      asked.add(rewrite);
      return rewrite.finished(rewrite.rowsRewritten() + ORDERS);
    });
    CdcFlowWorkflow again = flow.start(mirror(hashing()));
    MirrorStatus running = WorkerEnvironment.awaitStatus(again, s -> !asked.isEmpty() && s.fieldRuleRewrite() == null
        && s.state() == MirrorPhase.RUNNING);

    assertEquals(1, asked.size(), asked.toString());
    assertEquals(null, asked.get(0).after());
    assertEquals(running.startedFrom(), asked.get(0).upTo(), "up to the new start");
    assertEquals(Map.of("orders", new FieldRules(List.of(), List.of("email"))), asked.get(0).rules().collections());
    again.terminate(null);
    flow.result("orders");
  }

  /**
   * Issue 47, finding 7: a path the mirror hashed once, then no longer, holds hashes in some rows
   * and values in others; created again with a hash rule on it, a rewrite would hash the hashes
   * again. The set-up refuses it, with the reason, before any batch.
   */
  @Test
  void aMirrorCreatedAgainIsRefusedAHashOfAPathItHashedBeforeAndNoLongerDid() throws Exception {
    WorkerEnvironment flow = servers.start().startWorker(Fixtures.peersWithHashKey(KEY),
        Fixtures.inMemoryPorts(destination, catalog, stream), Fixtures.quickPulls(), clock);
    CdcFlowWorkflow first = flow.start(mirror(hashing()));
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(ORDERS - 1))::equals, Duration.ofSeconds(30));
    first.edit(Map.of("removeFieldRules", Map.of("orders", List.of("email"))));
    WorkerEnvironment.awaitStatus(first, s -> s.config().settings().fieldRules().isEmpty());
    first.terminate(null);
    flow.result("orders");
    int batches = catalog.batches("orders").size();

    flow.start(mirror(hashing()));
    WorkflowFailedException refused = assertThrows(WorkflowFailedException.class, () -> flow.result("orders"));
    String reason = refused.getCause() instanceof ApplicationFailure application
        ? application.getOriginalMessage() : String.valueOf(refused.getCause());
    assertTrue(reason.contains("'email' was hashed before"), reason);
    assertEquals(batches, catalog.batches("orders").size(), "no batch ran");
  }

  private static MirrorSettings hashing() {
    return MirrorSettings.defaults().apply(io.mongocdc.workflows.model.EditRequest.fromJson(
        Map.of("fieldRules", Map.of("orders", Map.of("hash", List.of("email"))))));
  }

  /**
   * Issue 47, finding 4: {@code customer.*} added over a {@code customer.email} hash rule was
   * rewritten with no word of the rule before, and the rows' email hashes were hashed again. The
   * workflow queues both rewrites (past and up to the checkpoint) with the paths the rows hold
   * hashes at, which the rewrite leaves as they are; a rule holding those values is refused.
   */
  @Test
  void aHashRuleAddedOverAnOverlappingOneIsRewrittenKeepingTheValuesHashedAlready() throws Exception {
    WorkerEnvironment flow = servers.start().startWorker(Fixtures.peersWithHashKey(KEY),
        Fixtures.inMemoryPorts(destination, catalog, stream), Fixtures.quickPulls(), clock);
    MirrorSettings hashing = MirrorSettings.defaults().apply(io.mongocdc.workflows.model.EditRequest.fromJson(
        Map.of("fieldRules", Map.of("orders", Map.of("hash", List.of("customer.email"))))));
    CdcFlowWorkflow workflow = flow.start(mirror(hashing));
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(ORDERS - 1))::equals, Duration.ofSeconds(30));
    List<FieldRuleRewrite> asked = new CopyOnWriteArrayList<>();
    destination.rewriteWith((rewrite, position) -> {
      asked.add(rewrite);
      return rewrite.finished(0);
    });

    workflow.edit(Map.of("fieldRules", Map.of("orders", Map.of("hash", List.of("customer.*")))));
    MirrorStatus settled = WorkerEnvironment.awaitStatus(workflow, s -> s.config().settings().fieldRules().of("orders").hash().size() == 2
        && s.fieldRuleRewrite() == null);
    assertEquals(2, asked.size(), asked + " / " + settled + " / " + catalog);
    for (FieldRuleRewrite rewrite : asked) {
      assertEquals(Map.of("orders", new FieldRules(List.of(), List.of("customer.*"))), rewrite.rules().collections());
      assertEquals(Map.of("orders", List.of("customer.email")), rewrite.hashedAlready(),
          "the rows hold hashes at customer.email, which the added rule reaches too");
    }
    assertRejected(workflow, Map.of("fieldRules", Map.of("orders", Map.of("hash", List.of("customer")))),
        "'customer' holds values 'customer.email' hashes or hashed");
    workflow.terminate(null);
    flow.result("orders");
  }

  @Test
  void aWorkerWithoutTheHashKeyRefusesAMirrorThatHashesBeforeAnyTableExists() throws Exception {
    WorkerEnvironment flow = servers.start().startWorker(Fixtures.peers(),
        Fixtures.inMemoryPorts(destination, catalog, stream), Fixtures.quickPulls(), clock);
    MirrorSettings hashing = MirrorSettings.defaults().apply(io.mongocdc.workflows.model.EditRequest.fromJson(
        Map.of("fieldRules", Map.of("orders", Map.of("hash", List.of("email"))))));
    CdcFlowWorkflow workflow = flow.start(mirror(hashing));

    MirrorStatus failed = WorkerEnvironment.awaitStatus(workflow, s -> s.lastError() != null);
    assertTrue(failed.lastError().contains(HashKey.ENVIRONMENT_VARIABLE), failed.lastError());
    assertTrue(destination.createdTables().isEmpty(), destination.createdTables().toString());
    workflow.terminate(null);
    flow.result("orders");
  }

  private static void assertRejected(CdcFlowWorkflow workflow, Map<String, Object> edit, String reason) {
    WorkflowUpdateException rejected = assertThrows(WorkflowUpdateException.class, () -> workflow.edit(edit));
    String message = rejected.getCause() instanceof ApplicationFailure application
        ? application.getOriginalMessage() : String.valueOf(rejected.getCause());
    assertTrue(message.contains(reason), () -> "expected '" + reason + "' in: " + message);
  }
}
