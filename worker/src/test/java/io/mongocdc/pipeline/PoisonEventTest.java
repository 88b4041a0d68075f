package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.DocumentRenderException;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigures;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Poison events (issue 16): an event the destination's screen refuses, or the decoder cannot
 * read, is met once and handled by the policy. FAIL fails the pull naming it, with nothing after
 * it delivered; QUARANTINE hands it over, with its raw BSON when undecodable, before anything
 * after it commits, and the batch goes on.
 */
@ExtendWith(PipelineCleanup.class)
class PoisonEventTest {

  private static final int POISON = 13;

  /** Refuses the record of document {@code POISON} (its key is "13"). */
  private static final RecordScreen REFUSES_13 = record -> record.key().equals(String.valueOf(POISON))
      ? "scripted refusal" : null;

  private final List<RawBsonDocument> events = Workload.inserts(40);

  @Test
  void failPolicyFailsThePullNamingTheEventAndDeliversNothingAfterIt() throws Exception {
    PullFixture fixture = new PullFixture(events);
    fixture.mirror.chunkSize(5);
    fixture.settings.commitIntervalRecords(5);
    RecordingSink sink = new RecordingSink();

    PullRecordsException failure = org.junit.jupiter.api.Assertions.assertThrows(PullRecordsException.class,
        () -> fixture.pullRecords().withPoisonEvents(PoisonEvents.failing(REFUSES_13))
            .pull(PullFixture.START, sink, ProgressListener.none()));

    PoisonEventException poison = assertInstanceOf(PoisonEventException.class, failure.getCause());
    String token = fixture.stream.tokenOf(POISON).data();
    assertTrue(poison.getMessage().contains(token), poison.getMessage());
    assertTrue(poison.getMessage().contains("shop.orders"), poison.getMessage());
    assertTrue(poison.getMessage().contains("with _id 13"), poison.getMessage());
    fixture.assertDeliveredInOrder(sink.committed(), 0, 10);
    assertEquals(StreamPosition.after(fixture.stream.tokenOf(9)), failure.delivered().deliveredCheckpoint());
  }

  @Test
  void quarantinePolicySetsTheEventAsideAndDeliversTheRest() throws Exception {
    PullFixture fixture = new PullFixture(events);
    fixture.mirror.chunkSize(5);
    RecordingSink sink = new RecordingSink();
    List<PoisonEvent> setAside = Collections.synchronizedList(new ArrayList<>());

    PullResult result = fixture.pullRecords().withPoisonEvents(PoisonEvents.quarantining(REFUSES_13, setAside::add))
        .pull(PullFixture.START, sink, ProgressListener.none());

    assertEquals(1, setAside.size());
    PoisonEvent event = setAside.get(0);
    assertEquals(fixture.stream.tokenOf(POISON), event.position());
    assertEquals("13", event.key());
    assertEquals("scripted refusal", event.reason());
    assertNotNull(event.document(), "the decoded document is kept so it can be applied later");
    assertNull(event.rawEvent());
    assertEquals(39, sink.committed().size());
    assertTrue(sink.committed().stream().noneMatch(r -> r.key().equals("13")));
    assertEquals(1, result.figures().get(BatchFigures.RECORDS_QUARANTINED));
    assertEquals(39, result.recordsDelivered());
    assertEquals(StreamPosition.after(fixture.stream.tokenOf(39)), result.checkpoint());
  }

  @Test
  void quarantinePolicyKeepsAnUndecodableEventWithItsRawBson() throws Exception {
    ScriptedRenderer renderer = new ScriptedRenderer();
    renderer.failAt(POISON, new DocumentRenderException("scripted render failure"));
    PullFixture fixture = new PullFixture(events).renderer(renderer);
    RecordingSink sink = new RecordingSink();
    List<PoisonEvent> setAside = Collections.synchronizedList(new ArrayList<>());

    PullResult result = fixture.pullRecords()
        .withPoisonEvents(PoisonEvents.quarantining(RecordScreen.ACCEPT_ALL, setAside::add))
        .pull(PullFixture.START, sink, ProgressListener.none());

    assertEquals(1, setAside.size());
    PoisonEvent event = setAside.get(0);
    assertEquals(fixture.stream.tokenOf(POISON), event.position());
    assertArrayEquals(events.get(POISON).getByteBuffer().array(), java.util.Arrays.copyOf(event.rawEvent(),
        events.get(POISON).getByteBuffer().array().length));
    assertEquals(events.get(POISON).getByteBuffer().remaining(), event.rawEvent().length);
    assertTrue(event.reason().contains("scripted render failure"), event.reason());
    assertEquals(39, sink.committed().size());
    assertEquals(1, result.figures().get(BatchFigures.RECORDS_QUARANTINED));
  }

  @Test
  void failPolicyStillFailsAnUndecodableEventWithTheDecodeError() {
    ScriptedRenderer renderer = new ScriptedRenderer();
    renderer.failAt(POISON, new DocumentRenderException("scripted render failure"));
    PullFixture fixture = new PullFixture(events).renderer(renderer);

    PullRecordsException failure = PullFixture.pullFailure(fixture, new RecordingSink());

    assertInstanceOf(io.mongocdc.decode.ChangeEventDecodeException.class, failure.getCause());
  }

  @Test
  void aQuarantineThatCannotKeepTheEventFailsThePullBeforeAnythingAfterItCommits() {
    PullFixture fixture = new PullFixture(events);
    fixture.mirror.chunkSize(5);
    fixture.settings.commitIntervalRecords(5);
    RecordingSink sink = new RecordingSink();
    IllegalStateException catalogDown = new IllegalStateException("catalog unreachable");

    PullRecordsException failure = org.junit.jupiter.api.Assertions.assertThrows(PullRecordsException.class,
        () -> fixture.pullRecords().withPoisonEvents(PoisonEvents.quarantining(REFUSES_13, e -> {
          throw catalogDown;
        })).pull(PullFixture.START, sink, ProgressListener.none()));

    assertEquals(catalogDown, failure.getCause());
    fixture.assertDeliveredInOrder(sink.committed(), 0, 10);
    assertEquals(0, failure.delivered().figures().get(BatchFigures.RECORDS_QUARANTINED));
  }

  @Test
  void theScreenIsAskedInStreamOrderOnOneThread() throws Exception {
    PullFixture fixture = new PullFixture(events);
    fixture.mirror.chunkSize(3).decodeWorkers(4);
    List<String> asked = new ArrayList<>();
    Set<Thread> threads = Collections.synchronizedSet(new java.util.HashSet<>());
    RecordScreen recording = record -> {
      threads.add(Thread.currentThread());
      asked.add(record.key());
      return null;
    };

    fixture.pullRecords().withPoisonEvents(PoisonEvents.failing(recording))
        .pull(PullFixture.START, new RecordingSink(), ProgressListener.none());

    assertEquals(java.util.stream.IntStream.range(0, 40).mapToObj(String::valueOf).toList(), asked);
    assertEquals(1, threads.size());
  }
}
