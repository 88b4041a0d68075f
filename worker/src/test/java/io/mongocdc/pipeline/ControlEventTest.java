package io.mongocdc.pipeline;

import io.mongocdc.workflows.model.ControlEventPolicy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeEventDecodeException;
import io.mongocdc.decode.ControlEvent;
import io.mongocdc.decode.Namespace;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Invariant 6: drop, rename, dropDatabase and invalidate are handled explicitly; unknown types fail. */
@ExtendWith(PipelineCleanup.class)
class ControlEventTest {

  private static final Namespace ORDERS = Workload.ORDERS;


  static Stream<Arguments> controlEvents() {
    return Stream.of(
        Arguments.of(ControlEvent.Type.DROP, (Function<ChangeEvents, RawBsonDocument>) e -> e.drop(ORDERS)),
        Arguments.of(ControlEvent.Type.RENAME, (Function<ChangeEvents, RawBsonDocument>)
            e -> e.rename(ORDERS, new Namespace("shop", "orders_old"))),
        Arguments.of(ControlEvent.Type.DROP_DATABASE, (Function<ChangeEvents, RawBsonDocument>)
            e -> e.dropDatabase("shop")),
        Arguments.of(ControlEvent.Type.INVALIDATE, (Function<ChangeEvents, RawBsonDocument>) ChangeEvents::invalidate));
  }

  /** 20 inserts, the control event, 20 more inserts. */
  private static List<RawBsonDocument> around(Function<ChangeEvents, RawBsonDocument> control) {
    ChangeEvents events = new ChangeEvents();
    List<RawBsonDocument> out = new ArrayList<>();
    for (int n = 0; n < 20; n++) {
      out.add(events.insert(ORDERS, Workload.document(n, n)));
    }
    out.add(control.apply(events));
    for (int n = 21; n < 41; n++) {
      out.add(events.insert(ORDERS, Workload.document(n, n)));
    }
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("controlEvents")
  void pausePolicyEndsTheBatchJustBeforeTheEvent(
      ControlEvent.Type type, Function<ChangeEvents, RawBsonDocument> control) throws Exception {
    PullFixture fixture = new PullFixture(around(control));
    fixture.mirror.chunkSize(7).controlEventPolicy(ControlEventPolicy.PAUSE);
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    fixture.assertDeliveredInOrder(sink.committed(), 0, 20);
    assertEquals(EndReason.CONTROL_EVENT, result.endReason());
    assertEquals(type, result.stoppedAt().type());
    assertEquals(fixture.stream.tokenOf(20), result.stoppedAt().position());
    assertEquals(StreamPosition.after(fixture.stream.tokenOf(19)), result.checkpoint(),
        "the checkpoint stops short of the control event, so it is met again on resume");
    assertEquals(1, sink.commits());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("controlEvents")
  void ignorePolicyCountsTheEventAndGoesOn(
      ControlEvent.Type type, Function<ChangeEvents, RawBsonDocument> control) throws Exception {
    PullFixture fixture = new PullFixture(around(control));
    fixture.mirror.chunkSize(7).controlEventPolicy(ControlEventPolicy.IGNORE);
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    List<io.mongocdc.source.ResumeToken> expected = new ArrayList<>();
    for (int i = 0; i < 41; i++) {
      if (i != 20) {
        expected.add(fixture.stream.tokenOf(i));
      }
    }
    assertEquals(expected, PullFixture.positions(sink.committed()));
    assertNull(result.stoppedAt());
    assertEquals(List.of(type), result.controlEvents().stream().map(ControlEvent::type).toList());
    assertEquals(StreamPosition.after(fixture.stream.tokenOf(40)), result.checkpoint());
  }

  @Test
  void aControlEventFirstInTheBatchLeavesTheStartingCheckpoint() throws Exception {
    ChangeEvents events = new ChangeEvents();
    PullFixture fixture = new PullFixture(List.of(events.drop(ORDERS), events.insert(ORDERS, Workload.document(1, 1))));
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    assertEquals(PullFixture.START, result.checkpoint());
    assertEquals(List.of(), sink.committed());
    assertEquals(ControlEvent.Type.DROP, result.stoppedAt().type());
  }

  @Test
  void anUnknownOperationTypeFailsTheBatchWithItsName() {
    ChangeEvents events = new ChangeEvents();
    List<RawBsonDocument> script = new ArrayList<>(List.of(events.insert(ORDERS, Workload.document(0, 0))));
    script.add(events.ofType("shardCollection", ORDERS));
    PullFixture fixture = new PullFixture(script);
    RecordingSink sink = new RecordingSink();

    PullRecordsException error = PullFixture.pullFailure(fixture, sink);

    ChangeEventDecodeException cause = assertInstanceOf(ChangeEventDecodeException.class, error.getCause());
    assertTrue(cause.getMessage().contains("unknown operationType 'shardCollection'"), cause.getMessage());
    assertEquals(fixture.stream.tokenOf(1), cause.position());
    assertEquals(0, sink.commits());
  }
}
