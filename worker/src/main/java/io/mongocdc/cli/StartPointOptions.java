package io.mongocdc.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.model.Checkpoint;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.BsonTimestamp;
import picocli.CommandLine.Option;

/**
 * Where a new mirror's change stream starts, instead of the source's time now: at a time, or after
 * a resume token another tool stored. At most one of the two; the source's history must hold it.
 */
final class StartPointOptions {

  private static final Pattern CLUSTER_TIME = Pattern.compile("(\\d{1,12})\\.(\\d{1,12})");
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--start-at", paramLabel = "TIME",
      description = "Start the change stream at TIME, inclusive: an ISO-8601 time (2026-12-01T00:00:00Z; counted "
          + "from the start of its second) or a cluster time SECONDS.INCREMENT (1796083200.1). The snapshot is off "
          + "unless --snapshot is given.")
  String startAt;

  @Option(names = "--start-after", paramLabel = "TOKEN",
      description = "Start the change stream after the event of this resume token: its _data hex, the document "
          + "{\"_data\": \"...\"}, or the offset another tool stored (Debezium's {\"resume_token\": ...}, the MongoDB "
          + "Kafka connector's {\"_id\": \"{\\\"_data\\\": ...}\"}). The snapshot is off unless --snapshot is given.")
  String startAfter;

  /**
   * The start point given, or null for none.
   *
   * @throws IllegalArgumentException naming the option and what it takes
   */
  Checkpoint startPoint() {
    if (startAt != null && startAfter != null) {
      throw new IllegalArgumentException("give --start-at or --start-after, not both");
    }
    if (startAt != null) {
      return atTime(startAt.trim());
    }
    return startAfter == null ? null : afterToken(startAfter.trim());
  }

  /**
   * Refuses a {@code --start-after} offset the MongoDB Kafka connector committed while it was
   * still copying its snapshot ({@code "copy": "true"}) for a mirror that copies nothing: the token
   * is where that copy began, not a position after a finished one, so documents the copy never
   * reached and nothing changed since would never arrive.
   *
   * @param snapshot whether the mirror copies the documents as they are now ({@code --snapshot})
   * @throws IllegalArgumentException with what to do instead
   */
  void requireSnapshotAfterAnUnfinishedCopy(boolean snapshot) {
    if (startAfter != null && !snapshot && takenDuringACopy(startAfter.trim())) {
      throw new IllegalArgumentException("--start-after: this offset was committed while the Kafka connector was still"
          + " copying its snapshot (\"copy\": \"true\"), so the copy never finished: the documents it had not reached"
          + " would never arrive. Add --snapshot to copy the documents as they are now (from this token, or without a"
          + " start point), or give an offset the connector committed after its copy (\"copy\": \"false\" or none)");
    }
  }

  /** Whether the offset is one the Kafka connector marked as taken during its copy. */
  static boolean takenDuringACopy(String text) {
    if (!text.startsWith("{")) {
      return false;
    }
    try {
      JsonNode copy = JSON.readTree(text).get("copy");
      // The connector writes the flag as a string; a boolean means the same.
      return copy != null && (copy.isBoolean() ? copy.booleanValue() : "true".equalsIgnoreCase(copy.asText().trim()));
    } catch (JsonProcessingException e) {
      return false;
    }
  }

  static Checkpoint atTime(String text) {
    Matcher clusterTime = CLUSTER_TIME.matcher(text);
    if (clusterTime.matches()) {
      long seconds = Long.parseLong(clusterTime.group(1));
      long increment = Long.parseLong(clusterTime.group(2));
      if (seconds > 0xFFFFFFFFL || increment > 0xFFFFFFFFL) {
        throw new IllegalArgumentException("--start-at " + text + ": a cluster time's seconds and increment are"
            + " each at most " + 0xFFFFFFFFL);
      }
      return Checkpoint.atOperationTime(seconds, (int) increment);
    }
    Instant instant;
    try {
      instant = OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("--start-at takes an ISO-8601 time with its offset, such as"
          + " 2026-12-01T00:00:00Z, or a cluster time SECONDS.INCREMENT such as 1796083200.1; got '" + text + "'");
    }
    if (instant.isBefore(Instant.EPOCH) || instant.getEpochSecond() > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("--start-at " + text + " is outside the times a cluster time can hold");
    }
    return Checkpoint.atOperationTime(instant.getEpochSecond(), 0);
  }

  static Checkpoint afterToken(String text) {
    String data = text.startsWith("{") ? tokenInOffset(text) : text;
    ResumeToken token;
    BsonTimestamp time;
    try {
      token = ResumeToken.of(data);
      time = token.clusterTime();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IllegalArgumentException("--start-after takes a change stream resume token, got '" + text + "': "
          + e.getMessage());
    }
    return Checkpoint.afterToken(token.data(), time.getTime() & 0xFFFFFFFFL, time.getInc());
  }

  /** The {@code _data} of a token given as JSON, as a driver, Debezium or the Kafka connector writes it. */
  private static String tokenInOffset(String text) {
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("--start-after: '" + text + "' is not valid JSON: " + e.getOriginalMessage());
    }
    for (int depth = 0; depth < 3 && node != null; depth++) {
      if (node.path("_data").isTextual()) {
        return node.get("_data").asText();
      }
      JsonNode inner = node.has("resume_token") ? node.get("resume_token") : node.get("_id");
      if (inner != null && inner.isTextual()) {
        String value = inner.asText().trim();
        if (!value.startsWith("{")) {
          return value;
        }
        try {
          inner = JSON.readTree(value);
        } catch (JsonProcessingException e) {
          break;
        }
      }
      node = inner;
    }
    throw new IllegalArgumentException("--start-after: found no resume token in '" + text + "' (looked for _data, "
        + "resume_token and _id)");
  }
}
