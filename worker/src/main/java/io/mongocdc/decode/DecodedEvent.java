package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;

/**
 * What the decoder makes of one change event: a data record, a control event, one it passes over,
 * or one it could not read.
 */
public sealed interface DecodedEvent permits ChangeRecord, ControlEvent, UndecodableEvent, SkippedEvent {

  /** The event's resume token: its position in the stream. */
  ResumeToken position();
}
