package io.mongocdc.destination;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.source.ResumeToken;
import java.time.Instant;

/** Builds change records for tests: positions are plain numbers turned into ordered tokens. */
final class Records {

  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private Records() {}

  /** A token at cluster time (1 000 000 + n, 1): tokens order as their n. */
  static ResumeToken pos(long n) {
    return ResumeToken.of(String.format("82%08X%08X2B0404", 1_000_000 + n, 1));
  }

  static ChangeRecord insert(Namespace ns, String key, String doc, long n) {
    return record(Operation.INSERT, ns, key, doc, n);
  }

  static ChangeRecord update(Namespace ns, String key, String doc, long n) {
    return record(Operation.UPDATE, ns, key, doc, n);
  }

  static ChangeRecord replace(Namespace ns, String key, String doc, long n) {
    return record(Operation.REPLACE, ns, key, doc, n);
  }

  static ChangeRecord delete(Namespace ns, String key, long n) {
    return record(Operation.DELETE, ns, key, null, n);
  }

  static ChangeRecord record(Operation op, Namespace ns, String key, String doc, long n) {
    return ChangeRecord.builder()
        .operation(op)
        .source(ns)
        .table(TableNaming.tableName(ns))
        .key(key)
        .document(doc)
        .position(pos(n))
        .commitTime(T0.plusMillis(n))
        .sourceBytes(doc == null ? 64 : doc.length() + 64)
        .build();
  }
}
