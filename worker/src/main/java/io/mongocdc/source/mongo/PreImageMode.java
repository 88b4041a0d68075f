package io.mongocdc.source.mongo;

import com.mongodb.client.model.changestream.FullDocumentBeforeChange;

/**
 * Whether change events carry the document as it was before the change ({@code
 * fullDocumentBeforeChange}, MongoDB 6.0+). The server has a pre-image only for collections with
 * {@code changeStreamPreAndPostImages} enabled, and only for changes made after it was enabled.
 */
public enum PreImageMode {
  /** No pre-images (default). */
  OFF("off", FullDocumentBeforeChange.OFF),
  /** The pre-image where the server recorded one, else {@code null}. */
  WHEN_AVAILABLE("whenAvailable", FullDocumentBeforeChange.WHEN_AVAILABLE),
  /** The pre-image; the stream fails on an event whose pre-image the server does not have. */
  REQUIRED("required", FullDocumentBeforeChange.REQUIRED);

  private final String setting;
  private final FullDocumentBeforeChange driverValue;

  PreImageMode(String setting, FullDocumentBeforeChange driverValue) {
    this.setting = setting;
    this.driverValue = driverValue;
  }

  /** The mode a mirror's {@code fullDocumentBeforeChange} setting names (validated by the mirror's settings). */
  public static PreImageMode ofSetting(String setting) {
    for (PreImageMode mode : values()) {
      if (mode.setting.equals(setting)) {
        return mode;
      }
    }
    throw new IllegalArgumentException("fullDocumentBeforeChange must be off, whenAvailable or required, got '"
        + setting + "'");
  }

  /** As the mirror setting spells it. */
  public String setting() {
    return setting;
  }

  FullDocumentBeforeChange driverValue() {
    return driverValue;
  }
}
