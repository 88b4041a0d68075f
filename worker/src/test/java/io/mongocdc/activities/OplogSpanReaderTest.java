package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.ports.OplogSpanLog;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.OplogSpan;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * A copied snapshot partition reads the source's oplog span and leaves it in the catalog, so the
 * headroom of a first snapshot's starting point is known before any batch (issue 48, item 4).
 */
class OplogSpanReaderTest {

  private static final MirrorConfig MIRROR = new MirrorConfig("orders", "src", "dst", "shop", List.of("orders"),
      "public", MirrorSettings.defaults());
  private static final OplogSpan SPAN = new OplogSpan(1_700_000_000, 1_700_003_600);

  /** A source that only tells its oplog span (its stream is never opened here). */
  private static MirrorSourceFactory source(Supplier<OplogSpan> span) {
    return ScriptedSource.builder().stream(position -> {
      throw new UnsupportedOperationException("not read here");
    }).now(StreamPosition.atOperationTime(new BsonTimestamp(1_700_000_000, 0))).oplogSpan(span).build();
  }

  @Test
  void theSpanIsReturnedAndLeftInTheCatalog() {
    List<String> recorded = new ArrayList<>();
    OplogSpanReader reader = new OplogSpanReader(source(() -> SPAN),
        (mirror, span, observedAt) -> recorded.add(mirror + " " + span));
    assertEquals(SPAN, reader.readQuietly(MIRROR));
    assertEquals(List.of("orders " + SPAN), recorded);
  }

  @Test
  void neitherAReadNorARecordThatFailsFailsTheCopy() {
    List<String> recorded = new ArrayList<>();
    OplogSpanReader unreadable = new OplogSpanReader(source(() -> {
      throw new IllegalStateException("not authorized on local");
    }), (mirror, span, observedAt) -> recorded.add(mirror));
    assertNull(unreadable.readQuietly(MIRROR));
    assertTrue(recorded.isEmpty());

    OplogSpanReader catalogDown = new OplogSpanReader(source(() -> SPAN), (mirror, span, observedAt) -> {
      throw new IllegalStateException("catalog down");
    });
    assertEquals(SPAN, catalogDown.readQuietly(MIRROR), "the workflow still learns the span");
    assertNull(new OplogSpanReader(source(() -> null), OplogSpanLog.NONE).readQuietly(MIRROR), "not reported");
  }
}
