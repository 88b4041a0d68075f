package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;

/** What the decoder makes of one change event: a data record, a control event, or one it could not read. */
public sealed interface DecodedEvent permits ChangeRecord, ControlEvent, UndecodableEvent {

  /** The event's resume token: its position in the stream. */
  ResumeToken position();
}
