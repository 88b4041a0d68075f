package io.mongocdc.console;

import io.mongocdc.secrets.Redaction;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.apache.commons.text.StringEscapeUtils;
import org.jooq.types.Interval;

/** HTML text for the console's pages: every value escaped, every text redacted of credentials. */
final class Html {

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  private Html() {}

  /** {@code text} escaped for an element's body or an attribute value, with credentials redacted. */
  static String text(Object text) {
    return text == null ? "" : StringEscapeUtils.escapeHtml4(Redaction.redact(String.valueOf(text)));
  }

  /** A catalog value as a person reads it: times to the second, intervals and rates rounded. */
  static String value(Object value) {
    if (value == null) {
      return "";
    }
    if (value instanceof OffsetDateTime time) {
      return text(TIME.format(time.atZoneSameInstant(ZoneOffset.UTC)) + " UTC");
    }
    if (value instanceof Interval interval) {
      return text(seconds(interval.toDuration().toMillis() / 1000.0));
    }
    if (value instanceof BigDecimal decimal && decimal.stripTrailingZeros().scale() <= 0) {
      return text(decimal.toBigInteger());
    }
    if (value instanceof Double || value instanceof Float || value instanceof BigDecimal) {
      double number = ((Number) value).doubleValue();
      return text(Math.abs(number) >= 100 ? String.format("%.0f", number) : String.format("%.2f", number));
    }
    return text(value);
  }

  static String seconds(double seconds) {
    if (Double.isNaN(seconds)) {
      return "";
    }
    if (seconds < 0) {
      return "-" + seconds(-seconds);
    }
    Duration duration = Duration.ofSeconds((long) seconds);
    long hours = duration.toHours();
    return hours > 0 ? String.format("%d h %02d min", hours, duration.toMinutesPart())
        : duration.toMinutes() > 0 ? String.format("%d min %02d s", duration.toMinutes(), duration.toSecondsPart())
        : String.format("%d s", duration.toSeconds());
  }

  /** A table of {@code rows} with {@code columns}, or a line saying there is nothing. */
  static String table(List<Map<String, Object>> rows, List<String> columns, String none) {
    if (rows.isEmpty()) {
      return "<p class=\"none\">" + text(none) + "</p>";
    }
    StringBuilder html = new StringBuilder("<table><thead><tr>");
    columns.forEach(column -> html.append("<th>").append(text(column.replace('_', ' '))).append("</th>"));
    html.append("</tr></thead><tbody>");
    for (Map<String, Object> row : rows) {
      html.append("<tr>");
      columns.forEach(column -> html.append("<td>").append(value(row.get(column))).append("</td>"));
      html.append("</tr>");
    }
    return html.append("</tbody></table>").toString();
  }
}
