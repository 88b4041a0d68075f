package io.mongocdc.ports;

import io.mongocdc.snapshot.IdRange;
import io.mongocdc.verify.RangeDigest;
import io.mongocdc.workflows.model.MirrorConfig;
import java.util.Collection;
import java.util.Map;

/** The destination side of verify: what a mirror's table holds, read without changing it. */
public interface DestinationRows {

  /** Told after every so many rows read; throwing (a cancelled activity's heartbeat does) stops the read. */
  @FunctionalInterface
  interface Progress {
    void read(long rows) throws Exception;
  }

  /**
   * The live rows (not deleted) of {@code table} whose {@code _id} is in {@code range}, with the
   * position each carries.
   */
  RangeDigest read(MirrorConfig mirror, String table, IdRange range, Progress progress) throws Exception;

  /** The rows with these keys, live or deleted; a key without a row is absent. */
  Map<String, Row> rows(MirrorConfig mirror, String table, Collection<String> keys) throws Exception;

  /**
   * One row as it is.
   *
   * @param document the document as stored ({@code jsonb} text); null when deleted
   * @param position the position of the event that last wrote it
   */
  record Row(String document, String position) {}
}
