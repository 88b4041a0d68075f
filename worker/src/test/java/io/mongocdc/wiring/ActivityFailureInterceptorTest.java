package io.mongocdc.wiring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.activities.ActivityFailureInterceptor;
import io.mongocdc.activities.CommitCheckpointActivityImpl;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.testing.ActivityInterception;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.CommitCheckpointActivity;
import io.mongocdc.workflows.FailureTypes;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import io.temporal.testing.TestEnvironmentOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every worker that runs the project's activities classifies what an activity throws, in one
 * place: the factory {@link WorkerWiring#workers} makes (production's {@code mongo-cdc worker},
 * {@code mongo-cdc dev} and the tests' {@link WorkerEnvironment} all take theirs there, and {@link
 * WorkerWiring#register} takes no other). {@code WorkerCommandTest} checks the command's worker
 * the same way.
 */
class ActivityFailureInterceptorTest {

  private static final String REFUSAL = "scripted: the catalog refuses the commit";

  @RegisterExtension
  final WorkflowTestExtension servers = WorkflowTestExtension.serversOnly();

  @Test
  void theWiringsFactoryClassifiesInnermostUnderATestsInterceptors() {
    WorkerInterceptor tests = ActivityInterception.of((context, input, proceed) -> proceed.get());

    WorkerInterceptor[] interceptors = WorkerWiring.factoryOptions(tests).getWorkerInterceptors();

    assertEquals(2, interceptors.length);
    assertInstanceOf(ActivityFailureInterceptor.class, interceptors[0], "applied first: the innermost");
    assertSame(tests, interceptors[1]);
  }

  @Test
  void aRawFailureOfAnActivityReachesTheWorkflowOfTheTestEnvironmentClassified() throws Exception {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.failNextCommit(new InvalidMirrorConfigurationException(REFUSAL));
    WorkerEnvironment flow = servers.start().startWorker(Fixtures.peers(),
        Fixtures.inMemoryPorts(new InMemoryDestination(), catalog, ScriptedChangeStream.of(Fixtures.orderEvents(3))));

    flow.start(Fixtures.orders(MirrorSettings.defaults().toBuilder().batchSize(3).idleTimeoutSeconds(1)
        .snapshot(SnapshotSettings.off()).build()));

    MirrorStateChange failed = catalog.awaitState("orders", s -> s.failureType() != null, Duration.ofSeconds(30));
    assertClassified(failed);
  }

  /** What a mirror whose commit threw a raw InvalidMirrorConfigurationException records when it fails. */
  static void assertClassified(MirrorStateChange failed) {
    assertEquals(MirrorPhase.FAILED, failed.phase(), failed::toString);
    assertEquals(FailureTypes.INVALID_CONFIGURATION, failed.failureType());
    assertTrue(failed.lastError().contains("CommitCheckpoint: invalid configuration: " + REFUSAL
        + "; fix the mirror or the worker's peers, then resume the mirror"), failed.lastError());
  }

  @Test
  void aTestActivityEnvironmentWithTheWiringsOptionsClassifiesToo() {
    TestActivityEnvironment env = TestActivityEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkerFactoryOptions(WorkerWiring.factoryOptions()).build());
    try {
      InMemoryCatalog catalog = new InMemoryCatalog();
      env.registerActivitiesImplementations(new CommitCheckpointActivityImpl(catalog));
      CommitCheckpointActivity activity = env.newActivityStub(CommitCheckpointActivity.class,
          ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(30)).build());
      CommitCheckpointRequest request = new CommitCheckpointRequest("orders", 1,
          io.mongocdc.activities.Checkpoints.of(Fixtures.AFTER_START), BatchFigures.none());

      catalog.failNextCommit(new IllegalStateException("connection reset"));
      ApplicationFailure transientFailure = failureOf(() -> activity.commitCheckpoint(request));
      assertEquals(FailureTypes.TRANSIENT, transientFailure.getType());
      assertFalse(transientFailure.isNonRetryable());
      assertEquals("CommitCheckpoint: connection reset", transientFailure.getOriginalMessage());

      catalog.failNextCommit(new InvalidMirrorConfigurationException(REFUSAL));
      ApplicationFailure invalid = failureOf(() -> activity.commitCheckpoint(request));
      assertEquals(FailureTypes.INVALID_CONFIGURATION, invalid.getType());
      assertTrue(invalid.isNonRetryable());
    } finally {
      env.close();
    }
  }

  private static ApplicationFailure failureOf(Runnable call) {
    ActivityFailure failure = assertThrows(ActivityFailure.class, call::run);
    return assertInstanceOf(ApplicationFailure.class, failure.getCause());
  }
}
