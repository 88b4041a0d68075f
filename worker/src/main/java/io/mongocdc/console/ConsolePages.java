package io.mongocdc.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.catalog.ConsoleQueries;
import io.mongocdc.ports.MirrorHealth;
import io.mongocdc.workflows.model.CopyTimeLeft;
import io.mongocdc.workflows.model.SnapshotProgress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The console's pages as HTML, from what the catalog holds; no page holds a secret. */
final class ConsolePages {

  /** States drawn red: the mirror is not progressing and needs someone. */
  private static final Set<String> BAD_STATES = Set.of("failed", "backing_off");
  private static final List<String> STAGES = List.of("read_ms", "decode_ms", "sender_wait_ms", "sink_write_ms",
      "sink_commit_ms", "lane_commit_ms");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ConsoleQueries catalog;
  private final boolean readOnly;

  ConsolePages(ConsoleQueries catalog, boolean readOnly) {
    this.catalog = catalog;
    this.readOnly = readOnly;
  }

  String overview() {
    Map<String, MirrorHealth> health = new LinkedHashMap<>();
    catalog.health().forEach(h -> health.put(h.mirror(), h));
    Instant now = Instant.now();
    StringBuilder body = new StringBuilder("<h1>Mirrors</h1>");
    List<Map<String, Object>> mirrors = catalog.mirrors();
    if (mirrors.isEmpty()) {
      body.append("<p class=\"none\">No mirror yet: <code>mongo-cdc mirror create</code> makes one.</p>");
    } else {
      body.append("<table id=\"mirrors\"><thead><tr><th>mirror</th><th>state</th><th>since</th><th>visible lag</th>"
          + "<th>records/s</th><th>quarantined</th><th>oplog headroom</th><th>last error</th></tr></thead><tbody>");
      for (Map<String, Object> mirror : mirrors) {
        String name = String.valueOf(mirror.get("mirror"));
        String state = String.valueOf(mirror.get("state"));
        MirrorHealth h = health.get(name);
        body.append("<tr class=\"").append(BAD_STATES.contains(state) ? "bad" : "ok").append("\" data-mirror=\"")
            .append(Html.text(name)).append("\"><td><a href=\"/mirrors/").append(Html.text(path(name))).append("\">")
            .append(Html.text(name)).append("</a></td><td class=\"state\">").append(Html.text(state))
            .append(mirror.get("state_reason") == null ? "" : " <small>" + Html.text(mirror.get("state_reason")) + "</small>")
            .append("</td><td>").append(Html.value(mirror.get("state_since")))
            .append("</td><td>").append(Html.value(mirror.get("visible_lag")))
            .append("</td><td>").append(Html.value(mirror.get("records_per_second")))
            .append("</td><td>").append(h == null ? "" : h.quarantinedEvents())
            .append("</td><td>").append(h == null ? "" : Html.seconds(h.oplogHeadroomSeconds(now)))
            .append("</td><td class=\"error\">").append(Html.text(mirror.get("last_error")))
            .append("</td></tr>");
      }
      body.append("</tbody></table>");
    }
    return page("mongo-cdc mirrors", body.toString(), true);
  }

  /** The mirror's page; null when the catalog has no such mirror. */
  String mirror(String name, String token) {
    List<Map<String, Object>> status = catalog.mirror(name);
    if (status.isEmpty()) {
      return null;
    }
    Map<String, Object> row = status.get(0);
    String state = String.valueOf(row.get("state"));
    StringBuilder body = new StringBuilder("<p><a href=\"/\">All mirrors</a></p><h1>Mirror ")
        .append(Html.text(name)).append("</h1>");
    body.append("<p id=\"state\" class=\"").append(BAD_STATES.contains(state) ? "bad" : "ok").append("\">")
        .append(Html.text(state)).append(row.get("state_reason") == null ? "" : ": " + Html.text(row.get("state_reason")))
        .append(" since ").append(Html.value(row.get("state_since"))).append("</p>");
    body.append(actions(name));
    body.append(Html.table(status, List.of("committed_batch_id", "committed_at", "replication_lag", "visible_lag",
        "records_per_second", "last_batch_freshness_p99_ms", "waiting", "failed_attempts_last_day", "last_error"),
        ""));
    List<Map<String, Object>> batches = catalog.chartedBatches(name);
    body.append("<h2>Over time</h2>");
    body.append("<script type=\"application/json\" id=\"batches\">").append(series(batches)).append("</script>");
    body.append("<div class=\"charts\">")
        .append(chart("records", "Records per second, per batch"))
        .append(chart("freshness", "Freshness p50 / p99 per batch (s)"))
        .append(chart("duration", "Batch duration (s)"))
        .append("</div>");
    body.append("<h2>Stage times of recent batches</h2>").append(stages(batches));
    body.append("<h2>Snapshot</h2>").append(Html.table(catalog.snapshotProgress(name), List.of("collection", "state",
        "partitions_done", "partitions_total", "documents_copied", "estimated_documents", "percent_done", "elapsed"),
        "No snapshot recorded."));
    body.append(copyTimeLeft(name));
    body.append("<h2>Failed attempts</h2>").append(Html.table(catalog.failedAttempts(name),
        List.of("batch_id", "attempt", "failure_type", "message", "failed_at"), "No failed attempt."));
    body.append("<h2>Quarantined events</h2>").append(Html.table(catalog.quarantined(name), List.of("id", "batch_id",
        "source_namespace", "table_name", "operation", "reason", "quarantined_at", "replayed_at"),
        "Nothing quarantined."));
    body.append("<h2>Typed column drift</h2>").append(Html.table(catalog.columnDrift(name),
        List.of("destination_table", "column_name", "drifted", "updated_at"), "No typed column value failed to convert."));
    body.append("<h2>Verify runs</h2>").append(Html.table(catalog.verifyRuns(name), List.of("run_id", "state", "repair",
        "started_at", "finished_at", "ranges_total", "missing", "extra", "different", "unsettled", "repaired"),
        "Never verified."));
    String settings = catalog.settings(name);
    body.append("<h2>Settings</h2><pre id=\"settings\">").append(Html.text(settings)).append("</pre>");
    if (!readOnly) {
      body.append("<h2>Edit</h2><form method=\"post\" action=\"/mirrors/").append(Html.text(path(name)))
          .append("/edit\" id=\"edit\">").append(hidden(token))
          .append("<p>A JSON object of settings to change, as <code>mongo-cdc mirror edit</code> sends it; the mirror's"
              + " workflow checks it and says why it refuses one.</p>")
          .append("<textarea name=\"edit\" rows=\"4\" cols=\"60\">{\"batchSize\": 5000}</textarea><br>")
          .append("<button type=\"submit\">Send the edit</button></form>");
    }
    return page("mongo-cdc mirror " + name, body.toString(), false);
  }

  /**
   * While a copy runs: how long it is expected to take still, against the oplog headroom of the
   * stream's start point (issue 48's headroom guard); nothing otherwise.
   */
  private String copyTimeLeft(String name) {
    MirrorHealth h = catalog.health().stream().filter(m -> m.mirror().equals(name)).findFirst().orElse(null);
    if (h == null || h.snapshots().stream().allMatch(SnapshotProgress::done)) {
      return "";
    }
    Instant now = Instant.now();
    double left = h.copySecondsLeft(now);
    double headroom = h.oplogHeadroomSeconds(now);
    String warning = Double.isNaN(left) || Double.isNaN(headroom) ? null
        : CopyTimeLeft.warning((long) left, (long) headroom);
    return "<p id=\"copy-time-left\" class=\"" + (warning == null ? "ok" : "bad") + "\">Copy time left: "
        + (Double.isNaN(left) ? "unknown until a partition has finished" : Html.seconds(left) + " at the rate so far")
        + (Double.isNaN(headroom) ? "" : ", oplog headroom " + Html.seconds(headroom))
        + (warning == null ? "" : ". " + Html.text(warning)) + "</p>";
  }

  private String actions(String name) {
    if (readOnly) {
      return "<p class=\"none\">Read-only console: actions are switched off.</p>";
    }
    StringBuilder html = new StringBuilder("<p class=\"actions\">");
    for (String action : List.of("pause", "resume", "verify")) {
      html.append("<a class=\"button\" id=\"").append(action).append("\" href=\"/mirrors/").append(Html.text(path(name)))
          .append("/confirm?action=").append(action).append("\">").append(action).append("</a> ");
    }
    return html.append("</p>").toString();
  }

  /** The page that asks before an action is sent. */
  String confirm(String name, String action, String token) {
    String body = "<h1>" + Html.text(action) + " mirror " + Html.text(name) + "?</h1>"
        + "<p>" + Html.text(consequence(action)) + "</p>"
        + "<form method=\"post\" action=\"/mirrors/" + Html.text(path(name)) + "/" + Html.text(action) + "\">"
        + hidden(token) + "<button type=\"submit\" id=\"confirm\">Yes, " + Html.text(action) + "</button> "
        + "<a href=\"/mirrors/" + Html.text(path(name)) + "\">Cancel</a></form>";
    return page(action + " " + name, body, false);
  }

  /** What an action did, or why it was refused. */
  String outcome(String name, String message, boolean done) {
    String body = "<p class=\"" + (done ? "ok" : "bad") + "\" id=\"outcome\">" + Html.text(message) + "</p>"
        + "<p><a href=\"/mirrors/" + Html.text(path(name)) + "\">Back to mirror " + Html.text(name) + "</a></p>";
    return page("mongo-cdc mirror " + name, body, false);
  }

  String notFound(String what) {
    return message("not found", what);
  }

  /** A page of one message, shown as text, titled {@code title}. */
  String message(String title, String what) {
    return page(title, "<p class=\"bad\">" + Html.text(what) + "</p><p><a href=\"/\">All mirrors</a></p>", false);
  }

  private static String consequence(String action) {
    return switch (action) {
      case "pause" -> "The batch in flight finishes, then the mirror waits for resume. Nothing is lost.";
      case "resume" -> "The mirror goes on from its committed checkpoint.";
      case "verify" -> "Compares the destination with the source, range by range, reading the source at the"
          + " mirror's verifyDocumentsPerSecond; nothing is repaired.";
      default -> "";
    };
  }

  private static String hidden(String token) {
    return "<input type=\"hidden\" name=\"token\" value=\"" + Html.text(token) + "\">";
  }

  private static String chart(String id, String title) {
    return "<figure><figcaption>" + Html.text(title) + "</figcaption><div class=\"chart\" id=\"chart-" + id
        + "\" data-chart=\"" + id + "\"></div></figure>";
  }

  /** The batches as columns for the charts: ended (epoch seconds), records/s, freshness, duration. */
  private static String series(List<Map<String, Object>> batches) {
    Map<String, List<Object>> columns = new LinkedHashMap<>();
    for (String column : List.of("ended_epoch", "records_per_second", "freshness_p50_ms", "freshness_p99_ms",
        "seconds")) {
      List<Object> values = new ArrayList<>();
      batches.forEach(batch -> values.add(number(batch.get(column))));
      columns.put(column, values);
    }
    try {
      // "</" never appears in numbers, so the JSON cannot end the script element early.
      return JSON.writeValueAsString(columns);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Double number(Object value) {
    return value instanceof Number n ? n.doubleValue() : null;
  }

  /** The last batches' stage times as stacked bars, widths in shares of the batch's summed stages. */
  private static String stages(List<Map<String, Object>> batches) {
    if (batches.isEmpty()) {
      return "<p class=\"none\">No batch has finished yet.</p>";
    }
    StringBuilder html = new StringBuilder("<p class=\"legend\">");
    for (int i = 0; i < STAGES.size(); i++) {
      html.append("<span class=\"stage s").append(i).append("\">").append(Html.text(STAGES.get(i).replace("_ms", "")
          .replace('_', ' '))).append("</span> ");
    }
    html.append("</p><table class=\"stages\"><tbody>");
    for (Map<String, Object> batch : batches.subList(Math.max(0, batches.size() - 15), batches.size())) {
      long total = 0;
      for (String stage : STAGES) {
        total += millis(batch.get(stage));
      }
      html.append("<tr><td>batch ").append(Html.value(batch.get("batch_id"))).append("</td><td class=\"bar\">");
      for (int i = 0; i < STAGES.size(); i++) {
        long ms = millis(batch.get(STAGES.get(i)));
        if (ms > 0 && total > 0) {
          html.append("<span class=\"stage s").append(i).append("\" style=\"width:")
              .append(String.format("%.1f", 100.0 * ms / total)).append("%\" title=\"")
              .append(Html.text(STAGES.get(i) + " " + ms)).append("\"></span>");
        }
      }
      html.append("</td><td>").append(total).append(" ms</td></tr>");
    }
    return html.append("</tbody></table>").toString();
  }

  private static long millis(Object value) {
    return value instanceof Number n ? Math.max(0, n.longValue()) : 0;
  }

  static String path(String mirror) {
    return URLEncoder.encode(mirror, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String page(String title, String body, boolean refresh) {
    return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        + (refresh ? "<meta http-equiv=\"refresh\" content=\"5\">" : "")
        + "<title>" + Html.text(title) + "</title>"
        + "<link rel=\"stylesheet\" href=\"/assets/uPlot.min.css\"><link rel=\"stylesheet\" href=\"/assets/console.css\">"
        + "<script src=\"/assets/uPlot.iife.min.js\"></script><script src=\"/assets/console.js\"></script>"
        + "</head><body>" + body + "</body></html>";
  }
}
