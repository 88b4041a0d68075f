package io.mongocdc.workflows.model;

import java.util.Objects;

/**
 * One figure of a batch, declared once: its JSON name, its type (which says how two partial
 * values combine), its unit and one line of doc; whether a retry of the batch carries it over from
 * the earlier attempts; whether the mirror's {@link MirrorTotals} sum it; and, where it is shown,
 * how status names it, the Prometheus counter that counts it and the catalog's {@code batches}
 * column that records it. {@link BatchFigures} carries the values from the pipeline to the
 * workflow and the catalog; metrics, status, the batch history and the figures table of {@code
 * docs/operations.md} all read it from here. The list of them is {@link BatchFigures#DECLARED}.
 *
 * @param <T> the type of its value
 */
public final class BatchFigure<T> {

  private final String name;
  private final FigureType<T> type;
  private final String unit;
  private final String doc;
  private final boolean overAttempts;
  private final boolean totalled;
  private final String label;
  private final String metric;
  private final String metricTag;
  private final String column;

  private BatchFigure(String name, FigureType<T> type, String unit, String doc, boolean overAttempts,
      boolean totalled, String label, String metric, String metricTag, String column) {
    this.name = Objects.requireNonNull(name, "name");
    this.type = Objects.requireNonNull(type, "type");
    this.unit = Objects.requireNonNull(unit, "unit");
    this.doc = Objects.requireNonNull(doc, "doc");
    this.overAttempts = overAttempts;
    this.totalled = totalled;
    this.label = label;
    this.metric = metric;
    this.metricTag = metricTag;
    this.column = column;
  }

  /** A figure of the attempt that completed the batch, shown nowhere but in the batch's figures. */
  static <T> BatchFigure<T> declare(String name, FigureType<T> type, String unit, String doc) {
    return new BatchFigure<>(name, type, unit, doc, false, false, null, null, null, null);
  }

  /** This figure, counted over all the batch's attempts: a retry carries the earlier attempts' value over. */
  BatchFigure<T> overAttempts() {
    return new BatchFigure<>(name, type, unit, doc, true, totalled, label, metric, metricTag, column);
  }

  /** This figure, summed over the mirror's batches in {@link MirrorTotals} (status {@code totals}). */
  BatchFigure<T> totalled() {
    return new BatchFigure<>(name, type, unit, doc, overAttempts, true, label, metric, metricTag, column);
  }

  /** This figure, named {@code label} where status shows the mirror's totals of it. */
  BatchFigure<T> shownAs(String label) {
    return new BatchFigure<>(name, type, unit, doc, overAttempts, totalled, label, metric, metricTag, column);
  }

  /**
   * This figure, counted by the Prometheus counter {@code metric} (published as {@code
   * <metric>_total}); a figure by name tags each name's count with {@code tag}.
   */
  BatchFigure<T> counted(String metric, String tag) {
    return new BatchFigure<>(name, type, unit, doc, overAttempts, totalled, label, metric, tag, column);
  }

  /** This figure, recorded in the catalog's {@code batches.<column>}. */
  BatchFigure<T> recordedIn(String column) {
    return new BatchFigure<>(name, type, unit, doc, overAttempts, totalled, label, metric, metricTag, column);
  }

  /** The name in JSON (workflow history, heartbeats, status). */
  public String name() {
    return name;
  }

  public FigureType<T> type() {
    return type;
  }

  /** What it counts or measures in: events, records, bytes, ms, ... */
  public String unit() {
    return unit;
  }

  /** One line of doc. */
  public String doc() {
    return doc;
  }

  /** True if a retry of the batch adds to what the earlier attempts reported; false: the last attempt's. */
  public boolean isOverAttempts() {
    return overAttempts;
  }

  /** True if the mirror's totals sum it. */
  public boolean isTotalled() {
    return totalled;
  }

  /** How status names the mirror's total of it; null when status shows it in its own words, or not at all. */
  public String label() {
    return label;
  }

  /** The Prometheus counter that counts it (without {@code _total}); null for none. */
  public String metric() {
    return metric;
  }

  /** The tag of the counter's names, for a figure by name; null otherwise. */
  public String metricTag() {
    return metricTag;
  }

  /** The column of the catalog's {@code batches} that records it; null where it is recorded in its own way. */
  public String column() {
    return column;
  }

  @Override
  public String toString() {
    return name;
  }
}
