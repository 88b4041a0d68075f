package io.mongocdc.source.mongo;

import com.mongodb.client.model.changestream.FullDocument;

/** How an update event gets its full document. */
public enum FullDocumentMode {
  /** Look the document up when the event is read (default): may be newer than the update, or missing. */
  UPDATE_LOOKUP(FullDocument.UPDATE_LOOKUP),
  /** Use the stored post-image if the collection records one, else none. Needs changeStreamPreAndPostImages. */
  WHEN_AVAILABLE(FullDocument.WHEN_AVAILABLE),
  /** Use the stored post-image; the stream fails if there is none. Needs changeStreamPreAndPostImages. */
  REQUIRED(FullDocument.REQUIRED);

  private final FullDocument driverValue;

  FullDocumentMode(FullDocument driverValue) {
    this.driverValue = driverValue;
  }

  FullDocument driverValue() {
    return driverValue;
  }
}
