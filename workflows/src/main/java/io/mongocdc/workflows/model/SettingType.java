package io.mongocdc.workflows.model;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The type of a {@link MirrorSetting}: how its value is read from an edit's JSON (naming a value
 * of the wrong type), what values it allows, and how it is written back as JSON and as text.
 *
 * @param <T> the type of the value
 */
public sealed interface SettingType<T>
    permits SettingType.Whole, SettingType.Flag, SettingType.Choice, SettingType.Word, SettingType.Strings,
    SettingType.ByCollection {

  /**
   * The value of {@code json} (as the data converter decodes JSON), or null when it is absent or
   * has the wrong type; a wrong type adds a problem naming {@code name} and the value.
   */
  T read(String name, Object json, List<String> problems);

  /** Adds each reason {@code value} cannot work. */
  default void check(String name, T value, List<String> problems) {}

  /** The value as JSON (strings, numbers, booleans, lists, maps). */
  default Object toJson(T value) {
    return value;
  }

  /** The value as status shows it. */
  default String text(T value) {
    return String.valueOf(value);
  }

  /** The value as the docs table writes a default: {@code `PAUSE`}, {@code 100 000}. */
  default String docText(T value) {
    return "`" + text(value) + "`";
  }

  /** What the docs table says is allowed, or null where the docs say it in their own words. */
  default String allowed() {
    return null;
  }

  /** A value as the operator typed it: strings quoted, lists and objects as JSON. */
  private static String describe(Object value) {
    return JsonText.of(value);
  }

  /** A whole number from {@code min} to {@code max}. */
  record Whole(int min, int max) implements SettingType<Integer> {
    @Override
    public Integer read(String name, Object json, List<String> problems) {
      if (json == null) {
        return null;
      }
      if (json instanceof Number number) {
        // JSON has one number type; accept 5000 and 5000.0 but not 2.5 or values beyond int.
        try {
          return new BigDecimal(number.toString()).intValueExact();
        } catch (ArithmeticException | NumberFormatException e) {
          problems.add(name + " must be a whole number within the integer range, got " + number);
          return null;
        }
      }
      problems.add(name + " must be a number, got " + describe(json));
      return null;
    }

    @Override
    public void check(String name, Integer value, List<String> problems) {
      if (value == null || value < min || value > max) {
        problems.add(name + " must be between " + min + " and " + max + ", got " + value);
      }
    }

    @Override
    public String allowed() {
      return grouped(min) + " – " + grouped(max);
    }

    @Override
    public String docText(Integer value) {
      return grouped(value);
    }

    /** {@code 10 000 000}, as the docs write numbers. */
    static String grouped(int value) {
      return String.format("%,d", value).replace(',', ' ');
    }
  }

  /** True or false. */
  record Flag() implements SettingType<Boolean> {
    @Override
    public Boolean read(String name, Object json, List<String> problems) {
      if (json == null || json instanceof Boolean) {
        return (Boolean) json;
      }
      problems.add(name + " must be true or false, got " + describe(json));
      return null;
    }

    @Override
    public String allowed() {
      return "`true`, `false`";
    }
  }

  /** One constant of an enum, spelled in JSON as the constant's name. */
  record Choice<E extends Enum<E>>(Class<E> values) implements SettingType<E> {
    @Override
    public E read(String name, Object json, List<String> problems) {
      if (json == null) {
        return null;
      }
      if (!(json instanceof String text)) {
        problems.add(name + " must be a string, got " + describe(json));
        return null;
      }
      for (E value : values.getEnumConstants()) {
        if (value.name().equals(text)) {
          return value;
        }
      }
      problems.add(name + " must be " + Word.alternatives(names()) + ", got '" + text + "'");
      return null;
    }

    @Override
    public void check(String name, E value, List<String> problems) {
      if (value == null) {
        problems.add(name + " must be " + Word.alternatives(names()) + ", got nothing");
      }
    }

    @Override
    public Object toJson(E value) {
      return value.name();
    }

    @Override
    public String allowed() {
      return names().stream().map(n -> "`" + n + "`").collect(Collectors.joining(", "));
    }

    private List<String> names() {
      return Arrays.stream(values.getEnumConstants()).map(Enum::name).toList();
    }
  }

  /** One of a few words, kept as the string itself. */
  record Word(List<String> words) implements SettingType<String> {
    @Override
    public String read(String name, Object json, List<String> problems) {
      if (json == null || json instanceof String) {
        return (String) json;
      }
      problems.add(name + " must be a string, got " + describe(json));
      return null;
    }

    @Override
    public void check(String name, String value, List<String> problems) {
      if (!words.contains(value)) {
        problems.add(name + " must be " + alternatives(words) + ", got '" + value + "'");
      }
    }

    @Override
    public String allowed() {
      return words.stream().map(n -> "`" + n + "`").collect(Collectors.joining(", "));
    }

    /** {@code a, b or c}. */
    static String alternatives(List<String> words) {
      return String.join(", ", words.subList(0, words.size() - 1)) + " or " + words.get(words.size() - 1);
    }
  }

  /** A list of strings, each list checked by {@code rule}. */
  record Strings(Rule rule) implements SettingType<List<String>> {

    /** What a list of strings must satisfy. */
    @FunctionalInterface
    public interface Rule {
      Rule ANY = (name, values, problems) -> {};

      /** Adds each reason {@code values} cannot work, naming the setting {@code name}. */
      void check(String name, List<String> values, List<String> problems);
    }

    @Override
    public List<String> read(String name, Object json, List<String> problems) {
      if (json == null) {
        return null;
      }
      if (json instanceof List<?> list && list.stream().allMatch(String.class::isInstance)) {
        return list.stream().map(String.class::cast).toList();
      }
      problems.add(name + " must be a list of strings, got " + describe(json));
      return null;
    }

    @Override
    public void check(String name, List<String> value, List<String> problems) {
      rule.check(name, value, problems);
    }
  }

  /**
   * A JSON object of collection: value, each value read by {@code read} (null when it has the
   * wrong type, which is a problem naming {@code valueShape}).
   */
  record ByCollection<V>(String valueName, String valueShape, Function<Object, V> reader,
      Function<V, Object> writer) implements SettingType<Map<String, V>> {

    @Override
    public Map<String, V> read(String name, Object json, List<String> problems) {
      if (json == null) {
        return null;
      }
      if (!(json instanceof Map<?, ?> map)) {
        problems.add(name + " must be an object of collection: " + valueName + ", got " + describe(json));
        return null;
      }
      Map<String, V> values = new LinkedHashMap<>();
      map.forEach((collection, each) -> {
        V got = reader.apply(each);
        if (got != null) {
          values.put(String.valueOf(collection), got);
        } else {
          problems.add(name + "." + collection + " must be " + valueShape + ", got " + describe(each));
        }
      });
      return values;
    }

    @Override
    public Object toJson(Map<String, V> value) {
      Map<String, Object> json = new LinkedHashMap<>();
      value.forEach((collection, each) -> json.put(collection, writer.apply(each)));
      return json;
    }

    /** Reads a list of strings; null for anything else. */
    static List<String> stringList(Object value) {
      if (value instanceof List<?> list && list.stream().allMatch(String.class::isInstance)) {
        return list.stream().map(String.class::cast).toList();
      }
      return null;
    }

    /** Reads a list of typed columns, each a JSON object of name, type and path; null for anything else. */
    static List<TypedColumn> columnList(Object value) {
      if (!(value instanceof List<?> list)) {
        return null;
      }
      List<TypedColumn> columns = new ArrayList<>();
      for (Object each : list) {
        if (!(each instanceof Map<?, ?> column) || !Set.of("name", "type", "path").containsAll(column.keySet())
            || !(column.get("name") instanceof String n) || !(column.get("type") instanceof String t)
            || !(column.get("path") instanceof String p)) {
          return null;
        }
        columns.add(new TypedColumn(n, t, p));
      }
      return columns;
    }

    /** Reads one collection's field rules, an object of {@code exclude} and {@code hash} lists; null for anything else. */
    static FieldRules fieldRules(Object value) {
      if (!(value instanceof Map<?, ?> rules) || rules.isEmpty() || !Set.of("exclude", "hash").containsAll(rules.keySet())) {
        return null;
      }
      List<String> exclude = rules.get("exclude") == null ? List.of() : stringList(rules.get("exclude"));
      List<String> hash = rules.get("hash") == null ? List.of() : stringList(rules.get("hash"));
      return exclude == null || hash == null ? null : new FieldRules(exclude, hash);
    }

    /** One collection's field rules as JSON: the lists it has. */
    static Object fieldRulesJson(FieldRules rules) {
      Map<String, Object> json = new LinkedHashMap<>();
      if (!rules.exclude().isEmpty()) {
        json.put("exclude", rules.exclude());
      }
      if (!rules.hash().isEmpty()) {
        json.put("hash", rules.hash());
      }
      return json;
    }

    /** Typed columns as JSON objects of name, type and path. */
    static Object columnsJson(List<TypedColumn> columns) {
      return columns.stream().map(c -> {
        Map<String, Object> column = new LinkedHashMap<>();
        column.put("name", c.name());
        column.put("type", c.type());
        column.put("path", c.path());
        return column;
      }).toList();
    }
  }
}
