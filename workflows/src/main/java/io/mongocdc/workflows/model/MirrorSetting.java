package io.mongocdc.workflows.model;

import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * One setting of a mirror, declared once: its JSON name, its command-line option, its type with
 * the values it allows, its default and one line of doc. Edit binding ({@link EditRequest}),
 * validation and {@code apply} ({@link MirrorSettings}), the CLI options, the status text and the
 * settings table of {@code docs/operations.md} all read it from here. The list of them is {@link
 * MirrorSettings#SETTINGS}.
 *
 * <p>Edit-only fields ({@code addCollections}, {@code removeColumns}, ...) are declared the same
 * way; they have no value in {@link MirrorSettings} ({@link #isStored()} is false), and their
 * merge into the settings is dedicated code ({@link SnapshotSettings#apply}, {@link
 * ChangeHistorySettings#apply}, {@link TypedColumnSettings#apply}).
 *
 * @param <T> the type of its value
 */
public final class MirrorSetting<T> {

  private final String name;
  private final List<String> options;
  private final String paramLabel;
  private final SettingType<T> type;
  private final T defaultValue;
  private final String defaultText;
  private final String doc;
  private final Function<MirrorSettings, T> get;
  private final BiFunction<MirrorSettings, T, MirrorSettings> set;

  private MirrorSetting(String name, List<String> options, String paramLabel, SettingType<T> type, T defaultValue,
      String defaultText, String doc, Function<MirrorSettings, T> get, BiFunction<MirrorSettings, T, MirrorSettings> set) {
    this.name = name;
    this.options = List.copyOf(options);
    this.paramLabel = paramLabel;
    this.type = type;
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.doc = doc;
    this.get = get;
    this.set = set;
  }

  /** A setting kept in {@link MirrorSettings}: read by {@code get}, replaced by {@code set}. */
  static <T> MirrorSetting<T> stored(String name, String option, String paramLabel, SettingType<T> type,
      T defaultValue, String doc, Function<MirrorSettings, T> get, BiFunction<MirrorSettings, T, MirrorSettings> set) {
    return new MirrorSetting<>(name, List.of(option), paramLabel, type, defaultValue, type.docText(defaultValue), doc,
        Objects.requireNonNull(get), Objects.requireNonNull(set));
  }

  /**
   * A structured setting or an edit-only field: bound and documented from here, merged by its
   * own code. {@code options} are every option that sets it; {@code defaultText} is what the docs
   * table shows as its default.
   */
  static <T> MirrorSetting<T> structured(String name, List<String> options, String paramLabel, SettingType<T> type,
      String defaultText, String doc) {
    return new MirrorSetting<>(name, options, paramLabel, type, null, defaultText, doc, null, null);
  }

  /** The name in JSON (edits, mirror input, status). */
  public String name() {
    return name;
  }

  /** The first command-line option, {@code --batch-size}. */
  public String option() {
    return options.get(0);
  }

  /** Every command-line option that sets it (a structured setting may have several). */
  public List<String> options() {
    return options;
  }

  /** The option's parameter label ({@code N}, {@code SECONDS}); null for a switch. */
  public String paramLabel() {
    return paramLabel;
  }

  public SettingType<T> type() {
    return type;
  }

  /** The value when nothing sets it; null for a structured setting. */
  public T defaultValue() {
    return defaultValue;
  }

  /** The default as the docs table shows it. */
  public String defaultText() {
    return defaultText;
  }

  /** One line of doc: the option's help text. */
  public String doc() {
    return doc;
  }

  /** Whether {@link MirrorSettings} keeps this setting's value ({@link #get}, {@link #set}). */
  public boolean isStored() {
    return get != null;
  }

  /** Its value in {@code settings}. */
  public T get(MirrorSettings settings) {
    return get.apply(settings);
  }

  /** {@code settings} with this setting's value replaced. */
  MirrorSettings set(MirrorSettings settings, T value) {
    return set.apply(settings, value);
  }

  /** {@code value} checked against what this setting allows; adds each reason it cannot work. */
  void check(T value, List<String> problems) {
    type.check(name, value, problems);
  }

  @Override
  public String toString() {
    return name;
  }
}
