package io.mongocdc.destination;

import java.sql.SQLException;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The binary COPY a sink's connection has open, if any. It stays open across chunks while
 * consecutive sends go to the same COPY statement, so a bulk load is one COPY, not one per chunk;
 * any other statement on the connection must {@link #finish} it first. Used by the sink's writing
 * thread only.
 */
final class CopyStream {

  private static final Logger log = LoggerFactory.getLogger(CopyStream.class);

  /** COPY data is sent in pieces of about this size while records are encoded. */
  static final int SEND_BUFFER_BYTES = 1 << 20;

  /** A row buffer keeps at most this much of its array from one transaction to the next. */
  static final int KEEP_BUFFER_BYTES = 1 << 20;

  private final CopyManager copyManager;
  private CopyIn active;
  private String activeSql;

  CopyStream(CopyManager copyManager) {
    this.copyManager = copyManager;
  }

  /** Sends the buffer's rows into the COPY {@code copySql}, opening it (after ending another) if needed; empties the buffer. */
  void send(String copySql, BinaryCopyBuffer rows) throws SQLException {
    try {
      if (active != null && !copySql.equals(activeSql)) {
        finish();
      }
      if (active == null) {
        active = copyManager.copyIn(copySql);
        activeSql = copySql;
        active.writeToCopy(BinaryCopyBuffer.HEADER, 0, BinaryCopyBuffer.HEADER.length);
      }
      active.writeToCopy(rows.array(), 0, rows.size());
    } finally {
      rows.reset();
    }
  }

  /** Ends the open COPY, if any; its errors (a bad row, a duplicate key) surface here. */
  void finish() throws SQLException {
    CopyIn copy = active;
    if (copy == null) {
      return;
    }
    active = null;
    activeSql = null;
    try {
      copy.writeToCopy(BinaryCopyBuffer.TRAILER, 0, BinaryCopyBuffer.TRAILER.length);
      copy.endCopy();
    } finally {
      if (copy.isActive()) {
        copy.cancelCopy();
      }
    }
  }

  /** Cancels the open COPY, if any, before a rollback; a failure to do so is only logged. */
  void cancelQuietly() {
    CopyIn copy = active;
    active = null;
    activeSql = null;
    if (copy != null && copy.isActive()) {
      try {
        copy.cancelCopy();
      } catch (SQLException | RuntimeException e) {
        log.debug("cancelling the open COPY failed", e);
      }
    }
  }
}
