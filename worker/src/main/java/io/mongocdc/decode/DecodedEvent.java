package io.mongocdc.decode;

import io.mongocdc.source.ResumeToken;

/** What the decoder makes of one change event: a data record or a control event. */
public sealed interface DecodedEvent permits ChangeRecord, ControlEvent {

  /** The event's resume token: its position in the stream. */
  ResumeToken position();
}
