package io.mongocdc.workflows.model;

import com.fasterxml.jackson.core.type.TypeReference;
import java.lang.reflect.Type;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

/**
 * The type of a {@link BatchFigure}: the Java type of its value (as JSON reads it), the value of a
 * batch that did nothing or did not say, and how two partial values of it (two attempts of a
 * batch, two batches of a mirror) combine. Values are kept as unmodifiable copies whose iteration
 * order is a function of their content (or, for stage timings, the order given), so workflow code
 * iterates them alike on every replay.
 *
 * @param <T> the type of the value
 */
public final class FigureType<T> {

  /** A count: summed. */
  public static final FigureType<Long> COUNT = new FigureType<>(new TypeReference<Long>() {}, 0L, "summed",
      Long::sum, v -> v);

  /** A number of which the largest counts (the attempts a batch took); null when unknown. */
  public static final FigureType<Integer> LARGEST = new FigureType<>(new TypeReference<Integer>() {}, null, "largest",
      Math::max, v -> v);

  /** Counts by a name (an operation type, a table): summed per name, sorted by name. */
  public static final FigureType<Map<String, Long>> COUNTS_BY_NAME = new FigureType<>(
      new TypeReference<Map<String, Long>>() {}, Map.of(), "summed per name", FigureType::sumByName,
      counts -> sumByName(counts, null));

  /**
   * Milliseconds by stage, in the order given (shown to operators as a sequence of stages): summed
   * per stage; null when unknown.
   */
  public static final FigureType<Map<String, Long>> MILLIS_BY_STAGE = new FigureType<>(
      new TypeReference<Map<String, Long>>() {}, null, "summed per stage", FigureType::sumInOrder,
      millis -> Collections.unmodifiableMap(new LinkedHashMap<>(millis)));

  /** Counts by table, then column ({@link ColumnDrift}): summed per table and column. */
  public static final FigureType<Map<String, Map<String, Long>>> COUNTS_BY_TABLE_AND_COLUMN = new FigureType<>(
      new TypeReference<Map<String, Map<String, Long>>>() {}, Map.of(), "summed per table and column",
      ColumnDrift::plus, ColumnDrift::copyOf);

  /**
   * What each destination table got ({@link TableFigures}), sorted by table: summed per table; null
   * when unknown, and unknown stays unknown once combined.
   */
  public static final FigureType<Map<String, TableFigures>> TABLES = new FigureType<>(
      new TypeReference<Map<String, TableFigures>>() {}, null, "summed per table (unknown if either is)",
      FigureType::sumTables, tables -> Collections.unmodifiableMap(new TreeMap<>(tables))).unknownSticks();

  private final Type javaType;
  private final T empty;
  private final String combination;
  private final BinaryOperator<T> combine;
  private final UnaryOperator<T> copy;
  private boolean unknownSticks;

  private FigureType(TypeReference<T> javaType, T empty, String combination, BinaryOperator<T> combine,
      UnaryOperator<T> copy) {
    this.javaType = javaType.getType();
    this.empty = empty;
    this.combination = combination;
    this.combine = combine;
    this.copy = copy;
  }

  /** This type, where a combination with an unknown (null) value is unknown. */
  private FigureType<T> unknownSticks() {
    unknownSticks = true;
    return this;
  }

  /** A value of which the first known one counts (the first position of a batch over its attempts). */
  public static <T> FigureType<T> firstKnown(TypeReference<T> javaType) {
    return new FigureType<>(javaType, null, "the first known", (a, b) -> a, v -> v);
  }

  /** A value of which the latest known one counts (the end reason, the freshness of the last attempt). */
  public static <T> FigureType<T> latestKnown(TypeReference<T> javaType) {
    return new FigureType<>(javaType, null, "the latest known", (a, b) -> b, v -> v);
  }

  /** The Java type JSON reads a value as. */
  public Type javaType() {
    return javaType;
  }

  /** The value of a batch that did nothing, or that did not report it (null: unknown). */
  public T empty() {
    return empty;
  }

  /** How two values combine, in words (docs). */
  public String combination() {
    return combination;
  }

  /** Both values combined; a null value is unknown and gives way to the other (but see {@link #TABLES}). */
  public T combine(T a, T b) {
    if (unknownSticks && (a == null || b == null)) {
      return null;
    }
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return copy(combine.apply(a, b));
  }

  /** An unmodifiable copy in this type's order; null stays null. */
  public T copy(T value) {
    return value == null ? null : copy.apply(value);
  }

  @SuppressWarnings("unchecked")
  T cast(Object value) {
    return (T) value;
  }

  private static Map<String, Long> sumByName(Map<String, Long> a, Map<String, Long> b) {
    Map<String, Long> sum = new TreeMap<>();
    a.forEach((name, count) -> sum.merge(Objects.requireNonNull(name), Objects.requireNonNull(count), Long::sum));
    if (b != null) {
      b.forEach((name, count) -> sum.merge(Objects.requireNonNull(name), Objects.requireNonNull(count), Long::sum));
    }
    return Collections.unmodifiableMap(sum);
  }

  private static Map<String, Long> sumInOrder(Map<String, Long> a, Map<String, Long> b) {
    Map<String, Long> sum = new LinkedHashMap<>(a);
    b.forEach((stage, millis) -> sum.merge(stage, millis, Long::sum));
    return sum;
  }

  private static Map<String, TableFigures> sumTables(Map<String, TableFigures> a, Map<String, TableFigures> b) {
    Map<String, TableFigures> sum = new TreeMap<>(a);
    b.forEach((table, figures) -> sum.merge(table, figures, TableFigures::plus));
    return sum;
  }
}
