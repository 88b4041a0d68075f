package io.mongocdc.workflows.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.util.Map;

/**
 * Figures summed over every committed batch of a mirror (across continue-as-new): the batches,
 * and each {@link BatchFigure#isTotalled() totalled} figure. As JSON, {@code batches} and a field
 * per figure, as {@link BatchFigures} writes them; a figure totals written before it existed do not
 * have reads as its empty value.
 *
 * @param batches the batches committed
 * @param figures the totalled figures
 */
@JsonSerialize(using = MirrorTotals.Writer.class)
@JsonDeserialize(using = MirrorTotals.Reader.class)
public record MirrorTotals(long batches, BatchFigures figures) {

  public static final MirrorTotals ZERO = new MirrorTotals(0, BatchFigures.zero());

  public MirrorTotals {
    figures = figures.only(BatchFigure::isTotalled);
  }

  /** The total of {@code figure}. */
  public <T> T get(BatchFigure<T> figure) {
    return figures.get(figure);
  }

  /** These totals with a snapshot partition's drift added. */
  public MirrorTotals plusDrift(Map<String, Map<String, Long>> drift) {
    return new MirrorTotals(batches, figures.plus(BatchFigures.COLUMN_DRIFT, drift));
  }

  /** These totals with one more batch. */
  public MirrorTotals plus(BatchFigures batch) {
    return new MirrorTotals(batches + 1, figures.plus(batch.only(BatchFigure::isTotalled)));
  }

  static final class Writer extends JsonSerializer<MirrorTotals> {
    @Override
    public void serialize(MirrorTotals totals, JsonGenerator json, SerializerProvider provider) throws IOException {
      json.writeStartObject();
      json.writeNumberField("batches", totals.batches());
      totals.figures().writeFields(json, provider);
      json.writeEndObject();
    }
  }

  static final class Reader extends JsonDeserializer<MirrorTotals> {
    @Override
    public MirrorTotals deserialize(JsonParser parser, DeserializationContext context) throws IOException {
      JsonNode object = parser.readValueAsTree();
      return new MirrorTotals(object.path("batches").asLong(), BatchFigures.readFields(object, context));
    }
  }
}
