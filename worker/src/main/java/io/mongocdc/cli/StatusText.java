package io.mongocdc.cli;

import io.mongocdc.workflows.model.BatchFigure;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.CopyTimeLeft;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.MirrorSetting;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.TypedColumnSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.MirrorTotals;
import io.mongocdc.workflows.model.RejectedEdit;
import io.mongocdc.workflows.model.SnapshotProgress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Renders a status for people; {@code --json} gives the query's JSON as is. */
final class StatusText {

  private StatusText() {}

  /**
   * While a copy runs, how long it is expected to take still against the oplog headroom: a copy
   * and the batches share the destination, a slow one falls behind, and past the headroom the
   * source no longer holds the stream's start point.
   */
  private static void copyTimeLeft(StringBuilder out, MirrorStatus s) {
    if (s.snapshots().stream().allMatch(SnapshotProgress::done)) {
      return;
    }
    Long left = s.copySecondsLeft();
    Long headroom = s.oplogHeadroomSeconds();
    String against = headroom == null ? "" : String.format(" (oplog headroom %d s)", headroom);
    String warning = CopyTimeLeft.warning(left, headroom);
    line(out, "  copy time left: %s%s%s", left == null ? "unknown (until a partition has finished)"
        : left + " s at the rate so far", against, warning == null ? "" : " (WARNING: " + warning + ")");
  }

  static String of(MirrorStatus s, long nowMillis) {
    return of(s, nowMillis, null);
  }

  /** @param running the running batch's last report; null when none */
  static String of(MirrorStatus s, long nowMillis, RunningBatchReport running) {
    StringBuilder out = new StringBuilder();
    line(out, "mirror %s: %s%s", s.mirror(), s.state(), s.pausedReason() == null ? "" : " (" + s.pausedReason() + ")");
    line(out, "  source: peer %s, database %s, collections %s", s.config().sourcePeer(), s.config().sourceDatabase(),
        s.config().collections().isEmpty() ? "all" : String.join(", ", s.config().collections()));
    line(out, "  destination: peer %s, schema %s", s.config().destinationPeer(), s.config().destinationSchema());
    line(out, "  batches: %d committed%s", s.committedBatchId(), s.batchInFlight() == 0 ? "" : ", batch " + s.batchInFlight() + " in flight");
    if (s.fieldRuleRewrite() != null) {
      line(out, "  field rule rewrite: %s", s.fieldRuleRewrite());
    }
    if (s.startedFrom() != null) {
      line(out, "  started: %s", StartPointWait.describe(s.startedFrom()));
    }
    if (s.committedCheckpoint() != null) {
      line(out, "  checkpoint: %s", s.committedCheckpoint().describe());
      line(out, "  checkpoint age: %s", s.checkpointAgeSeconds() == null ? "none yet (the starting point, not committed)"
          : s.checkpointAgeSeconds() + " s (what a restart would replay), committed at "
              + Instant.ofEpochMilli(s.committedAtMillis()));
    }
    if (running != null && running.waitingSinceMillis() != null) {
      line(out, "  waiting for destination connections: %.0f s (more mirrors write to peer %s than this worker's"
          + " pool serves at once; they take turns)", Math.max(0, nowMillis - running.waitingSinceMillis()) / 1000.0,
          s.config().destinationPeer());
    }
    if (running != null && running.visibleThroughMillis() != null && (s.lastBatchFreshness() == null
        || running.visibleThroughMillis() >= s.lastBatchFreshness().visibleThroughMillis())) {
      line(out, "  visible lag: %.1f s (the newest change visible in the destination to now, as the running batch"
          + " reported %.1f s ago)", Math.max(0, nowMillis - running.visibleThroughMillis()) / 1000.0,
          Math.max(0, nowMillis - running.reportedAtMillis()) / 1000.0);
    } else {
      line(out, "  visible lag: %s", s.visibleLagMillis() == null
          ? "unknown (no batch delivered changes yet)"
          : String.format("%.1f s (the newest change visible in the destination, as of the last batch, to now)",
              s.visibleLagMillis() / 1000.0));
    }
    if (s.lastBatchFreshness() != null) {
      line(out, "  freshness of the last batch: p50 %d ms, p99 %d ms, max %d ms (source commit to visible)",
          s.lastBatchFreshness().p50Millis(), s.lastBatchFreshness().p99Millis(), s.lastBatchFreshness().maxMillis());
    }
    if (s.oplogHeadroomSeconds() != null) {
      line(out, "  oplog headroom: %d s%s", s.oplogHeadroomSeconds(),
          s.oplogWarning() == null ? "" : " (WARNING: " + s.oplogWarning() + ")");
    }
    copyTimeLeft(out, s);
    for (SnapshotProgress snapshot : s.snapshots()) {
      line(out, "  snapshot of %s: %s, %d of %s partitions, %d documents copied, from %s", snapshot.collection(),
          snapshot.state(), snapshot.partitionsDone(),
          snapshot.partitionsTotal() == 0 ? "?" : String.valueOf(snapshot.partitionsTotal()),
          snapshot.documentsCopied(), snapshot.position().describe());
    }
    totals(out, s.totals());
    s.totals().get(BatchFigures.COLUMN_DRIFT).forEach((table, columns) -> line(out, "  typed column drift in %s: %s",
        table,
        String.join(", ", columns.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList())));
    long historyRows = s.totals().get(BatchFigures.HISTORY_ROWS_APPENDED);
    if (!s.config().settings().history().collections().isEmpty() || historyRows > 0) {
      line(out, "  history: %d rows appended to %s, %d pruned%s", historyRows,
          historyTables(s.config().settings().history().collections()),
          s.totals().get(BatchFigures.HISTORY_ROWS_PRUNED),
          s.config().settings().history().retentionDays() == 0 ? " (kept for ever)"
              : " (older than " + s.config().settings().history().retentionDays() + " days)");
    }
    line(out, "  last error: %s", s.lastError() == null ? "none"
        : s.lastError() + " (at " + Instant.ofEpochMilli(s.lastErrorAtMillis()) + ", " + s.failedAttempts() + " failed attempts in a row)");
    line(out, "  settings: %s", settings(s.config().settings()));
    for (EditRequest pending : s.pendingEdits()) {
      line(out, "  pending edit: %s", pending.toJson());
    }
    for (RejectedEdit rejected : s.recentRejectedEdits()) {
      line(out, "  rejected: %s at %s: %s", rejected.request(), Instant.ofEpochMilli(rejected.atMillis()), rejected.reason());
    }
    line(out, "  workflow run: %d (continued as new %d times), %d batches in this run", s.run() + 1, s.run(), s.batchesThisRun());
    return out.toString();
  }

  /**
   * The totalled batch figures that status names ({@link BatchFigure#label()}), in the order of
   * {@link BatchFigures#DECLARED}: the counts on one line, each figure by name on a line of its own
   * when it has any.
   */
  private static void totals(StringBuilder out, MirrorTotals totals) {
    List<String> counts = new ArrayList<>();
    List<String> byName = new ArrayList<>();
    for (BatchFigure<?> figure : BatchFigures.DECLARED) {
      if (!figure.isTotalled() || figure.label() == null) {
        continue;
      }
      Object total = totals.get(figure);
      if (total instanceof Map<?, ?> counted) {
        if (!counted.isEmpty()) {
          byName.add(figure.label() + ": " + counted.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
              .collect(Collectors.joining(", ")));
        }
      } else {
        counts.add(total + " " + figure.label());
      }
    }
    line(out, "  totals: %s", String.join(", ", counts));
    byName.forEach(text -> line(out, "  %s", text));
  }

  /**
   * Every setting as {@code name=value}, in the order of {@link MirrorSettings#SETTINGS}; the
   * structured ones (filters, history, typed columns, field rules) only when there are any.
   */
  static String settings(MirrorSettings s) {
    StringBuilder text = new StringBuilder();
    for (MirrorSetting<?> setting : MirrorSettings.SETTINGS) {
      if (setting == MirrorSettings.SNAPSHOT_FILTERS) {
        if (!s.snapshot().filters().isEmpty()) {
          text.append(" snapshotFilters=").append(new TreeMap<>(s.snapshot().filters()));
        }
      } else if (setting == MirrorSettings.HISTORY) {
        if (!s.history().collections().isEmpty()) {
          text.append(" history=").append(s.history().collections());
        }
      } else if (setting == MirrorSettings.HISTORY_RETENTION_DAYS) {
        // Only says something when some collection keeps a history.
        if (!s.history().collections().isEmpty()) {
          text.append(' ').append(valueOf(setting, s));
        }
      } else if (setting == MirrorSettings.COLUMNS) {
        text.append(columns(s.columns()));
      } else if (setting == MirrorSettings.FIELD_RULES) {
        s.fieldRules().collections().forEach((collection, rules) -> text.append(" fieldRules=").append(collection)
            .append("(exclude ").append(rules.exclude()).append(", hash ").append(rules.hash()).append(')'));
      } else if (setting.isStored()) {
        text.append(' ').append(valueOf(setting, s));
      }
    }
    return text.substring(1);
  }

  /** {@code batchSize=1000}. */
  private static <T> String valueOf(MirrorSetting<T> setting, MirrorSettings settings) {
    return setting.name() + "=" + setting.type().text(setting.get(settings));
  }

  /** {@code columns=orders(status text status, total numeric amount.total)}, and the indexes; empty without. */
  private static String columns(TypedColumnSettings columns) {
    if (columns.columns().isEmpty()) {
      return "";
    }
    StringBuilder text = new StringBuilder(" columns=");
    String separator = "";
    for (var entry : columns.columns().entrySet()) {
      text.append(separator).append(entry.getKey()).append('(').append(String.join(", ", entry.getValue().stream()
          .map(c -> c.name() + " " + c.type() + " " + c.path()).toList())).append(')');
      separator = " ";
    }
    return columns.indexes().isEmpty() ? text.toString() : text.append(" indexes=").append(columns.indexes()).toString();
  }

  private static String historyTables(java.util.List<String> collections) {
    return collections.isEmpty() ? "no collection now" : "the history of " + String.join(", ", collections);
  }

  private static void line(StringBuilder out, String format, Object... args) {
    out.append(String.format(format, args)).append('\n');
  }
}
