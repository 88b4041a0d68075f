package io.mongocdc.workflows.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * What one batch did, as recorded in the catalog's batch history and summed in status: a value
 * for each {@link BatchFigure} it knows, by declaration. The figures are declared here, once, in
 * {@link #DECLARED}; everything else reads them from their declaration.
 *
 * <p>As JSON (workflow history, heartbeats) it is one object with a field per figure it knows,
 * named as declared: the shape of the record it replaces, so histories written before keep their
 * meaning. A figure the JSON does not have is unknown to it (written by a worker before the figure
 * existed) and reads as its type's empty value; a field no declaration names is ignored.
 */
@JsonSerialize(using = BatchFigures.Writer.class)
@JsonDeserialize(using = BatchFigures.Reader.class)
public final class BatchFigures {

  public static final BatchFigure<Long> EVENTS_READ = BatchFigure.declare("eventsRead", FigureType.COUNT, "events",
      "change events the attempt that completed the batch read from the stream")
      .totalled().shownAs("events read");

  public static final BatchFigure<Long> RECORDS_DELIVERED = BatchFigure.declare("recordsDelivered", FigureType.COUNT,
      "records", "records durably applied to the destination, each counted once over the batch's attempts")
      .overAttempts().totalled().shownAs("records delivered").recordedIn("records");

  public static final BatchFigure<Long> RECORDS_EXCLUDED = BatchFigure.declare("recordsExcluded", FigureType.COUNT,
      "records", "records the attempt that completed the batch did not apply because their operation type is"
          + " excluded (excludedOperations)")
      .totalled().shownAs("excluded");

  public static final BatchFigure<Long> BYTES_READ = BatchFigure.declare("bytesRead", FigureType.COUNT, "bytes",
      "raw bytes of the events the attempt that completed the batch read")
      .totalled().shownAs("bytes").recordedIn("bytes");

  public static final BatchFigure<Map<String, Long>> RECORDS_BY_TABLE = BatchFigure.declare("recordsByTable",
      FigureType.COUNTS_BY_NAME, "records", "records the attempt that completed the batch delivered, per destination"
          + " table");

  public static final BatchFigure<Long> DURATION_MILLIS = BatchFigure.declare("durationMillis", FigureType.COUNT, "ms",
      "wall time of the attempt that completed the batch");

  public static final BatchFigure<String> END_REASON = BatchFigure.declare("endReason",
      FigureType.latestKnown(new TypeReference<String>() {}), "reason",
      "why the batch ended: BATCH_SIZE, IDLE_TIMEOUT, MAX_DURATION, CONTROL_EVENT or TURN_OVER")
      .recordedIn("end_reason");

  public static final BatchFigure<Integer> ATTEMPTS = BatchFigure.declare("attempts", FigureType.LARGEST, "attempts",
      "activity attempts the batch took")
      .recordedIn("attempts");

  public static final BatchFigure<Map<String, Long>> STAGE_MILLIS = BatchFigure.declare("stageMillis",
      FigureType.MILLIS_BY_STAGE, "ms", "where the attempt that completed the batch spent its time, by stage (read,"
          + " readerBackPressure, decode, senderWaitingForDecode, sinkWrite, sinkCommit, applyBackPressure,"
          + " laneCommit), in that order; null when unknown");

  public static final BatchFigure<Map<String, TableFigures>> TABLES = BatchFigure.declare("tables", FigureType.TABLES,
      "records", "what each destination table got, by operation, over the batch's attempts, sorted by table; null"
          + " when unknown")
      .overAttempts();

  public static final BatchFigure<String> FIRST_POSITION = BatchFigure.declare("firstPosition",
      FigureType.firstKnown(new TypeReference<String>() {}), "resume token",
      "the resume token (hex) of the batch's first delivered record, over its attempts; null when it delivered"
          + " nothing")
      .overAttempts();

  public static final BatchFigure<Long> RECORDS_QUARANTINED = BatchFigure.declare("recordsQuarantined",
      FigureType.COUNT, "records", "records set aside in the catalog's quarantined_events instead of applied"
          + " (poisonEventPolicy QUARANTINE), over the batch's attempts")
      .overAttempts().totalled().shownAs("quarantined").counted("mongo_cdc_records_quarantined", null)
      .recordedIn("quarantined");

  public static final BatchFigure<Long> HISTORY_ROWS_APPENDED = BatchFigure.declare("historyRowsAppended",
      FigureType.COUNT, "rows", "rows appended to the mirror's history tables over the batch's attempts; a replayed"
          + " event is not appended again")
      .overAttempts().totalled().recordedIn("history_rows");

  public static final BatchFigure<Long> HISTORY_ROWS_PRUNED = BatchFigure.declare("historyRowsPruned",
      FigureType.COUNT, "rows", "history rows older than historyRetentionDays removed after the batch")
      .totalled().recordedIn("history_pruned");

  public static final BatchFigure<Map<String, Map<String, Long>>> COLUMN_DRIFT = BatchFigure.declare("columnDrift",
      FigureType.COUNTS_BY_TABLE_AND_COLUMN, "values", "typed column values that did not convert (_drift) in the"
          + " rows the attempt that completed the batch wrote, by table and column")
      .totalled();

  public static final BatchFigure<BatchFreshness> FRESHNESS = BatchFigure.declare("freshness",
      FigureType.latestKnown(new TypeReference<BatchFreshness>() {}), "ms",
      "how fresh the changes of the attempt that completed the batch were when they became visible (p50, p99,"
          + " max, visible through); null when it delivered nothing");

  public static final BatchFigure<Map<String, Long>> EVENTS_SKIPPED = BatchFigure.declare("eventsSkipped",
      FigureType.COUNTS_BY_NAME, "events", "events passed over, by operation type (unknownEventPolicy SKIP, or an"
          + " excluded type the decoder met), over the batch's attempts")
      .overAttempts().totalled().shownAs("events passed over, by type").counted("mongo_cdc_events_skipped", "type")
      .recordedIn("events_skipped");

  /** Every batch figure, in the order JSON, docs and status list them. */
  public static final List<BatchFigure<?>> DECLARED = List.of(EVENTS_READ, RECORDS_DELIVERED, RECORDS_EXCLUDED,
      BYTES_READ, RECORDS_BY_TABLE, DURATION_MILLIS, END_REASON, ATTEMPTS, STAGE_MILLIS, TABLES, FIRST_POSITION,
      RECORDS_QUARANTINED, HISTORY_ROWS_APPENDED, HISTORY_ROWS_PRUNED, COLUMN_DRIFT, FRESHNESS, EVENTS_SKIPPED);

  private static final BatchFigures NONE = new BatchFigures(Map.of());
  private static final BatchFigures ZERO = NONE.plusEmpty(figure -> true);

  /** Known figures in declaration order; a null value is a known figure whose value is unknown. */
  private final Map<BatchFigure<?>, Object> values;

  private BatchFigures(Map<BatchFigure<?>, Object> values) {
    this.values = values;
  }

  /** Figures that know nothing yet: a heartbeat's, before an attempt has reported. */
  public static BatchFigures none() {
    return NONE;
  }

  /** The figures of a batch that did nothing: every figure at its type's empty value. */
  public static BatchFigures zero() {
    return ZERO;
  }

  /** The value of {@code figure}: its type's empty value when these figures do not know it. */
  public <T> T get(BatchFigure<T> figure) {
    return figure.type().cast(values.getOrDefault(figure, figure.type().empty()));
  }

  /** True if these figures know {@code figure} (their JSON has it). */
  public boolean knows(BatchFigure<?> figure) {
    return values.containsKey(figure);
  }

  /** These figures with {@code figure} set to {@code value}. */
  public <T> BatchFigures with(BatchFigure<T> figure, T value) {
    Map<BatchFigure<?>, Object> changed = new LinkedHashMap<>(values);
    changed.put(figure, figure.type().copy(value));
    return ordered(changed);
  }

  /** These figures with the count {@code figure} set to {@code value}. */
  public BatchFigures with(BatchFigure<Long> figure, long value) {
    return with(figure, Long.valueOf(value));
  }

  /** These figures with {@code value} combined into {@code figure} (as two partial values combine). */
  public <T> BatchFigures plus(BatchFigure<T> figure, T value) {
    return with(figure, knows(figure) ? figure.type().combine(get(figure), value) : value);
  }

  /** Both figures combined, figure by figure: those only one knows as it knows them. */
  public BatchFigures plus(BatchFigures other) {
    BatchFigures sum = this;
    for (BatchFigure<?> figure : other.values.keySet()) {
      sum = sum.plusOf(figure, other);
    }
    return sum;
  }

  /**
   * The figures of a batch whose earlier attempts reported these, after an attempt that reported
   * {@code attempt}: the figures counted over attempts combine, the others are the attempt's.
   */
  public BatchFigures followedBy(BatchFigures attempt) {
    BatchFigures after = attempt;
    for (BatchFigure<?> figure : values.keySet()) {
      if (figure.isOverAttempts()) {
        after = after.after(figure, this);
      }
    }
    return after;
  }

  /** Only the figures {@code keep} accepts. */
  public BatchFigures only(Predicate<BatchFigure<?>> keep) {
    Map<BatchFigure<?>, Object> kept = new LinkedHashMap<>();
    values.forEach((figure, value) -> {
      if (keep.test(figure)) {
        kept.put(figure, value);
      }
    });
    return new BatchFigures(Collections.unmodifiableMap(kept));
  }

  /** The figures these know, in declaration order. */
  public List<BatchFigure<?>> known() {
    return List.copyOf(values.keySet());
  }

  /** These figures with every figure {@code add} accepts and these do not know at its empty value. */
  private BatchFigures plusEmpty(Predicate<BatchFigure<?>> add) {
    Map<BatchFigure<?>, Object> all = new LinkedHashMap<>(values);
    for (BatchFigure<?> figure : DECLARED) {
      if (add.test(figure)) {
        all.putIfAbsent(figure, figure.type().empty());
      }
    }
    return ordered(all);
  }

  /** The batch's counts summed over its tables, or null when the tables are unknown. */
  public TableFigures totalsOverTables() {
    Map<String, TableFigures> tables = get(TABLES);
    if (tables == null) {
      return null;
    }
    TableFigures sum = new TableFigures(null, 0, 0, 0, 0, 0);
    for (TableFigures table : tables.values()) {
      sum = sum.plus(table);
    }
    return sum;
  }

  /** These figures with {@code figure} as {@code earlier} had it, followed by the value these have. */
  private <T> BatchFigures after(BatchFigure<T> figure, BatchFigures earlier) {
    T before = earlier.get(figure);
    return with(figure, knows(figure) ? figure.type().combine(before, get(figure)) : before);
  }

  private <T> BatchFigures plusOf(BatchFigure<T> figure, BatchFigures from) {
    return plus(figure, from.get(figure));
  }

  private static BatchFigures ordered(Map<BatchFigure<?>, Object> values) {
    Map<BatchFigure<?>, Object> ordered = new LinkedHashMap<>();
    for (BatchFigure<?> figure : DECLARED) {
      if (values.containsKey(figure)) {
        ordered.put(figure, values.get(figure));
      }
    }
    return new BatchFigures(Collections.unmodifiableMap(ordered));
  }

  /** Equal when every figure has the same value, known or read as its empty value. */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BatchFigures other)) {
      return false;
    }
    for (BatchFigure<?> figure : DECLARED) {
      if (!Objects.equals(get(figure), other.get(figure))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int hash = 1;
    for (BatchFigure<?> figure : DECLARED) {
      hash = 31 * hash + Objects.hashCode(get(figure));
    }
    return hash;
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("BatchFigures[");
    String separator = "";
    for (Map.Entry<BatchFigure<?>, Object> entry : values.entrySet()) {
      text.append(separator).append(entry.getKey().name()).append('=').append(entry.getValue());
      separator = ", ";
    }
    return text.append(']').toString();
  }

  /** Writes each figure these know as a field of the JSON object being written, in declaration order. */
  public void writeFields(JsonGenerator json, SerializerProvider provider) throws IOException {
    for (Map.Entry<BatchFigure<?>, Object> entry : values.entrySet()) {
      json.writeFieldName(entry.getKey().name());
      provider.defaultSerializeValue(entry.getValue(), json);
    }
  }

  /** The figures the fields of {@code object} name; other fields are left alone. */
  public static BatchFigures readFields(JsonNode object, DeserializationContext context) throws IOException {
    Map<BatchFigure<?>, Object> values = new LinkedHashMap<>();
    for (BatchFigure<?> figure : DECLARED) {
      JsonNode field = object.get(figure.name());
      if (field != null) {
        values.put(figure, field.isNull() ? null : read(figure.type(), field, context));
      }
    }
    return new BatchFigures(Collections.unmodifiableMap(values));
  }

  private static <T> T read(FigureType<T> type, JsonNode field, DeserializationContext context) throws IOException {
    return type.copy(type.cast(context.readTreeAsValue(field,
        context.getTypeFactory().constructType(type.javaType()))));
  }

  static final class Writer extends JsonSerializer<BatchFigures> {
    @Override
    public void serialize(BatchFigures figures, JsonGenerator json, SerializerProvider provider) throws IOException {
      json.writeStartObject();
      figures.writeFields(json, provider);
      json.writeEndObject();
    }
  }

  static final class Reader extends JsonDeserializer<BatchFigures> {
    @Override
    public BatchFigures deserialize(JsonParser parser, DeserializationContext context) throws IOException {
      return readFields(parser.readValueAsTree(), context);
    }
  }
}
