package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;

/**
 * The destination's say on whether it can hold a record, asked before the record is written, so
 * an event that would fail every attempt is met once, named, and handled by the mirror's {@code
 * poisonEventPolicy} instead of failing its batch for ever.
 *
 * <p>Called on the sender thread, in stream order, so a screen may keep state (such as which
 * collection a table belongs to) and decide the same way on every replay.
 */
@FunctionalInterface
public interface RecordScreen {

  RecordScreen ACCEPT_ALL = record -> null;

  /** Why the destination cannot hold this record, or null if it can. */
  String refusal(ChangeRecord record) throws Exception;
}
