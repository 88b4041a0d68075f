package io.mongocdc.activities;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.OplogSpanLog;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.OplogSpan;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the source's oplog span after a batch or a snapshot partition and leaves it in the catalog.
 * After a partition too: a copy shares the destination with the batches, which may fall behind
 * while it runs, and mirrors from before copies were made beside the batches keep them waiting. Reading or recording it never fails the batch or the copy.
 */
final class OplogSpanReader {

  private static final Logger log = LoggerFactory.getLogger(OplogSpanReader.class);

  private final MirrorSourceFactory source;
  private final OplogSpanLog spans;

  OplogSpanReader(MirrorSourceFactory source, OplogSpanLog spans) {
    this.source = Objects.requireNonNull(source, "source");
    this.spans = Objects.requireNonNull(spans, "spans");
  }

  /** The source's oplog span, also left in the catalog; null when the source does not tell it. */
  OplogSpan readQuietly(MirrorConfig mirror) {
    OplogSpan span;
    try {
      span = source.oplogSpan(mirror);
    } catch (RuntimeException e) {
      log.debug("mirror {}: cannot read the source's oplog span", mirror.name(), e);
      return null;
    }
    if (span != null) {
      try {
        spans.record(mirror.name(), span, Instant.now());
      } catch (RuntimeException e) {
        log.debug("mirror {}: cannot record the oplog span in the catalog", mirror.name(), e);
      }
    }
    return span;
  }
}
