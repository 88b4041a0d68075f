package io.mongocdc.activities;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.Checkpoint;
import java.io.IOException;

/**
 * The details of a PullRecords heartbeat: what is durably delivered so far, so a retry of the
 * same batch resumes after it instead of replaying it, and where the attempt spends its time.
 *
 * <p>As JSON, one object: {@code batchId}, {@code delivered}, {@code attempt}, a field per batch
 * figure it knows (as {@link BatchFigures} writes them), {@code visibleThroughMillis} and {@code
 * waitingSinceMillis}: the shape heartbeats of earlier workers have, so a retry on a newer worker
 * resumes after what an older one delivered.
 *
 * @param batchId the batch
 * @param delivered the delivered checkpoint
 * @param attempt the activity attempt that sent it
 * @param figures the batch's figures so far: those counted over attempts ({@link
 *     io.mongocdc.workflows.model.BatchFigure#isOverAttempts()}) over all its attempts, the others
 *     (events read, stage timings) of the attempt that sent it; a heartbeat of an earlier worker
 *     does not know the figures that worker did not report
 * @param visibleThroughMillis the source commit time of the newest change this attempt made
 *     visible in the destination (epoch milliseconds), for {@code mirror status} while the batch
 *     runs; null before one, and in heartbeats of workers before it existed
 * @param waitingSinceMillis when the attempt began to wait for its destination connections (epoch
 *     milliseconds), while it waits; null once it has them, and in heartbeats of workers before it
 *     existed
 */
@JsonSerialize(using = PullHeartbeat.Writer.class)
@JsonDeserialize(using = PullHeartbeat.Reader.class)
public record PullHeartbeat(long batchId, Checkpoint delivered, int attempt, BatchFigures figures,
    Long visibleThroughMillis, Long waitingSinceMillis) {

  public PullHeartbeat {
    figures = figures == null ? BatchFigures.none() : figures;
  }

  /** A heartbeat of an attempt that has delivered and counted nothing yet. */
  public static PullHeartbeat nothingYet(long batchId, int attempt) {
    return new PullHeartbeat(batchId, null, attempt, BatchFigures.none(), null, null);
  }

  /** These details, waiting for destination connections since {@code millis}. */
  public PullHeartbeat waitingSince(long millis) {
    return new PullHeartbeat(batchId, delivered, attempt, figures, visibleThroughMillis, millis);
  }

  static final class Writer extends JsonSerializer<PullHeartbeat> {
    @Override
    public void serialize(PullHeartbeat beat, JsonGenerator json, SerializerProvider provider) throws IOException {
      json.writeStartObject();
      json.writeNumberField("batchId", beat.batchId());
      json.writeFieldName("delivered");
      provider.defaultSerializeValue(beat.delivered(), json);
      json.writeNumberField("attempt", beat.attempt());
      beat.figures().writeFields(json, provider);
      json.writeFieldName("visibleThroughMillis");
      provider.defaultSerializeValue(beat.visibleThroughMillis(), json);
      json.writeFieldName("waitingSinceMillis");
      provider.defaultSerializeValue(beat.waitingSinceMillis(), json);
      json.writeEndObject();
    }
  }

  static final class Reader extends JsonDeserializer<PullHeartbeat> {
    @Override
    public PullHeartbeat deserialize(JsonParser parser, DeserializationContext context) throws IOException {
      JsonNode object = parser.readValueAsTree();
      JsonNode delivered = object.get("delivered");
      return new PullHeartbeat(object.path("batchId").asLong(),
          delivered == null || delivered.isNull() ? null : context.readTreeAsValue(delivered, Checkpoint.class),
          object.path("attempt").asInt(), BatchFigures.readFields(object, context),
          longOrNull(object, "visibleThroughMillis"), longOrNull(object, "waitingSinceMillis"));
    }

    private static Long longOrNull(JsonNode object, String field) {
      JsonNode value = object.get(field);
      return value == null || value.isNull() ? null : value.asLong();
    }
  }
}
