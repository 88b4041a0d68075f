package io.mongocdc.cli;

import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.MirrorSetting;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.SettingType;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * The editable settings as options, shared by create, edit and dev; each is unset unless given.
 * The options are made from {@link MirrorSettings#SETTINGS} (name, parameter label, help);
 * only the settings given by two options each ({@code --history}/{@code --no-history}, {@code
 * --columns}/{@code --columns-file}) are declared here, and {@code --add-collection} by {@code
 * mirror edit}, the one command that takes it.
 */
@Command(modelTransformer = SettingsOptions.FromSpecs.class)
public final class SettingsOptions {

  /** Made by their own options, below, or by the command that takes them. */
  private static final Set<MirrorSetting<?>> DEDICATED = Set.of(MirrorSettings.HISTORY, MirrorSettings.COLUMNS,
      MirrorSettings.ADD_COLLECTIONS, MirrorSettings.FIELD_RULES);

  /** Settings that act on a running mirror's tables or data: nothing to do for a new one. */
  private static final List<MirrorSetting<?>> EDIT_ONLY = List.of(MirrorSettings.RESYNC_COLLECTIONS,
      MirrorSettings.REMOVE_COLUMNS, MirrorSettings.DROP_COLUMN_DATA, MirrorSettings.REMOVE_FIELD_RULES);

  /** The value of each option given, as picocli converted it. */
  private final Map<MirrorSetting<?>, Object> given = new LinkedHashMap<>();

  @Option(names = "--history", paramLabel = "COLLECTION",
      description = "Also append every applied event of COLLECTION to its <table>_history table; repeatable.")
  List<String> history;

  @Option(names = "--no-history", paramLabel = "COLLECTION",
      description = "Stop appending COLLECTION's events to its history table (the table stays); repeatable.")
  List<String> noHistory;

  @Option(names = "--columns", paramLabel = "COLLECTION:NAME=TYPE:PATH[,...]",
      description = "Typed columns of COLLECTION's table, written with doc: NAME the column, TYPE one of text, bigint, "
          + "numeric, 'double precision', boolean, timestamptz, uuid, jsonb, text[], PATH dotted (items.0.sku); "
          + "one option per collection, repeatable. On edit, adds (or redefines) columns and backfills them.")
  List<String> columns;

  @Option(names = "--columns-file", paramLabel = "FILE",
      description = "Typed columns from a JSON file: {\"orders\": [{\"name\": \"status\", \"type\": \"text\", "
          + "\"path\": \"status\"}]}.")
  Path columnsFile;

  @Option(names = "--exclude-fields", paramLabel = "COLLECTION:PATH[,PATH...]",
      description = "Remove these fields of COLLECTION's documents before anything is written: dotted paths, through "
          + "arrays, * for any one field name (customer.*.email), after the collection's one name (orders:note,paid); "
          + "repeatable. Not _id.")
  List<String> excludeFields;

  @Option(names = "--hash-fields", paramLabel = "COLLECTION:PATH[,PATH...]",
      description = "Replace the values of these fields of COLLECTION by their keyed HMAC-SHA-256 (64 hex characters; "
          + "equal values hash equally), paths as for --exclude-fields; the key is MONGO_CDC_FIELD_HASH_KEY on every "
          + "worker; repeatable. Not _id.")
  List<String> hashFields;

  /**
   * The options given as an edit's JSON, which also adds {@code addCollections} (null for none);
   * empty when nothing is given. Values are not checked: the mirror checks them.
   */
  Map<String, Object> asJson(List<String> addCollections) {
    return asJson(addCollections, List.of());
  }

  /**
   * @param collections the mirror's collections, where known (empty when not): a field rule item
   *     may name one of them ({@link FieldRulesOption})
   */
  private Map<String, Object> asJson(List<String> addCollections, List<String> collections) {
    Map<String, Object> json = new LinkedHashMap<>();
    for (MirrorSetting<?> setting : MirrorSettings.SETTINGS) {
      Object value = setting == MirrorSettings.ADD_COLLECTIONS ? addCollections
          : setting == MirrorSettings.HISTORY ? historySwitches()
          : setting == MirrorSettings.COLUMNS ? columnsJson()
          : setting == MirrorSettings.FIELD_RULES ? fieldRulesJson(collections)
          : jsonOf(setting, given.get(setting));
      if (value != null) {
        json.put(setting.name(), value);
      }
    }
    return json;
  }

  /**
   * The defaults with the options given applied, for a new mirror: an option that only an edit of
   * a running mirror can act on is refused rather than ignored.
   *
   * @param collections the new mirror's collections; empty for every collection of its database
   */
  MirrorSettings applyTo(MirrorSettings defaults, List<String> collections) {
    for (MirrorSetting<?> editOnly : EDIT_ONLY) {
      if (given.get(editOnly) != null) {
        throw new CliException(editOnly.option() + " changes a running mirror: use it with mongo-cdc mirror edit",
            ExitCodes.INVALID);
      }
    }
    Map<String, Object> json = asJson(null, collections);
    return json.isEmpty() ? defaults : defaults.apply(EditRequest.fromJson(json));
  }

  /** An option's value as the JSON of the setting. */
  private static Object jsonOf(MirrorSetting<?> setting, Object value) {
    if (value == null) {
      return null;
    }
    if (setting == MirrorSettings.EXCLUDED_OPERATIONS) {
      // "--exclude-operations ''" clears the list.
      return ((List<?>) value).stream().map(String::valueOf).filter(s -> !s.isBlank()).toList();
    }
    if (setting == MirrorSettings.REMOVE_COLUMNS || setting == MirrorSettings.INDEXES) {
      return ColumnsOption.byCollection(setting.option(), strings(value));
    }
    if (setting == MirrorSettings.REMOVE_FIELD_RULES) {
      return FieldRulesOption.paths(setting.option(), strings(value), List.of());
    }
    return value;
  }

  private static List<String> strings(Object value) {
    return ((List<?>) value).stream().map(String::valueOf).toList();
  }

  /** {@code --history} and {@code --no-history} as collection: on/off; null when neither is given. */
  private Map<String, Boolean> historySwitches() {
    if (history == null && noHistory == null) {
      return null;
    }
    Map<String, Boolean> switches = new LinkedHashMap<>();
    if (history != null) {
      history.forEach(collection -> switches.put(collection, true));
    }
    if (noHistory != null) {
      noHistory.forEach(collection -> switches.put(collection, false));
    }
    return switches;
  }

  /** {@code --exclude-fields} and {@code --hash-fields} as the JSON of {@code fieldRules}; null when neither is given. */
  private Object fieldRulesJson(List<String> collections) {
    if (excludeFields == null && hashFields == null) {
      return null;
    }
    Map<String, List<String>> excluded = FieldRulesOption.paths("--exclude-fields", excludeFields, collections);
    Map<String, List<String>> hashed = FieldRulesOption.paths("--hash-fields", hashFields, collections);
    Map<String, Object> json = new LinkedHashMap<>();
    for (Map<String, List<String>> paths : java.util.Arrays.asList(excluded, hashed)) {
      if (paths != null) {
        String rule = paths == excluded ? "exclude" : "hash";
        paths.forEach((collection, list) -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> rules = (Map<String, Object>) json.computeIfAbsent(collection, c -> new LinkedHashMap<>());
          rules.put(rule, list);
        });
      }
    }
    return json;
  }

  private Object columnsJson() {
    var typed = ColumnsOption.columns(columns, columnsFile);
    return typed == null ? null : MirrorSettings.COLUMNS.type().toJson(typed);
  }

  /** Adds an option per setting to the command that mixes these options in. */
  static final class FromSpecs implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      SettingsOptions options = command.userObject() instanceof SettingsOptions self ? self
          : command.mixins().values().stream().map(CommandSpec::userObject)
              .filter(SettingsOptions.class::isInstance).map(SettingsOptions.class::cast).findFirst().orElseThrow();
      for (MirrorSetting<?> setting : MirrorSettings.SETTINGS) {
        // Once per command, however often picocli hands it over.
        if (!DEDICATED.contains(setting) && !command.optionsMap().containsKey(setting.option())) {
          command.addOption(option(setting, options.given));
        }
      }
      return command;
    }

    private static OptionSpec option(MirrorSetting<?> setting, Map<MirrorSetting<?>, Object> given) {
      OptionSpec.Builder option = OptionSpec.builder(setting.option())
          .description(setting.doc())
          .getter(new IGetter() {
            @Override
            @SuppressWarnings("unchecked")
            public <T> T get() {
              return (T) given.get(setting);
            }
          })
          .setter(new ISetter() {
            @Override
            public <T> T set(T value) {
              given.put(setting, value);
              return null;
            }
          });
      if (setting.paramLabel() != null) {
        option.paramLabel(setting.paramLabel());
      }
      SettingType<?> type = setting.type();
      if (type instanceof SettingType.Whole) {
        option.type(Integer.class);
      } else if (type instanceof SettingType.Flag) {
        // A stored switch can be turned off again; dropColumnData is a one-off of an edit.
        option.type(Boolean.class).arity("0").negatable(setting.isStored());
      } else if (type instanceof SettingType.Strings) {
        option.type(List.class).auxiliaryTypes(String.class).splitRegex(",");
      } else if (setting == MirrorSettings.SNAPSHOT_FILTERS) {
        option.type(Map.class).auxiliaryTypes(String.class, String.class);
      } else if (type instanceof SettingType.ByCollection) {
        option.type(List.class).auxiliaryTypes(String.class);
      } else {
        option.type(String.class);
      }
      return option.build();
    }
  }
}
