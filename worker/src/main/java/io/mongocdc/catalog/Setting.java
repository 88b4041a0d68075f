package io.mongocdc.catalog;

/** One catalog setting: its value (null: use the default), default and description. */
public record Setting(String name, String value, String defaultValue, String description) {

  /** The value in force: the set value, or the default. */
  public String effectiveValue() {
    return value != null ? value : defaultValue;
  }
}
