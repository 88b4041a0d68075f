package io.mongocdc.cli;

import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.MirrorSettings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** The editable settings as options; each is unset unless given. Shared by create and edit. */
public final class SettingsOptions {

  @Option(names = "--batch-size", paramLabel = "N", description = "Change events per batch, at most.")
  Integer batchSize;

  @Option(names = "--idle-timeout", paramLabel = "SECONDS", description = "A batch ends after this long without an event.")
  Integer idleTimeoutSeconds;

  @Option(names = "--max-batch-duration", paramLabel = "SECONDS", description = "A batch ends after this long in any case.")
  Integer maxBatchDurationSeconds;

  @Option(names = "--max-visibility-delay", paramLabel = "MILLIS",
      description = "A record read waits at most this long before the destination commits it and it becomes "
          + "visible, however long the batch (default " + MirrorSettings.DEFAULT_MAX_VISIBILITY_DELAY + ").")
  Integer maxVisibilityDelay;

  @Option(names = "--decode-workers", paramLabel = "N", description = "Threads decoding events in parallel.")
  Integer decodeWorkers;

  @Option(names = "--chunk-size", paramLabel = "N", description = "Events per chunk handed to a decode worker.")
  Integer chunkSize;

  @Option(names = "--exclude-operations", paramLabel = "OPS", split = ",",
      description = "Operation types not applied (insert, update, replace, delete); an empty value clears the list.")
  List<String> excludedOperations;

  @Option(names = "--control-event-policy", paramLabel = "POLICY",
      description = "PAUSE (stop before drop/rename/dropDatabase/invalidate) or IGNORE.")
  String controlEventPolicy;

  @Option(names = "--poison-event-policy", paramLabel = "POLICY",
      description = "FAIL (an event the destination cannot hold or the decoder cannot read fails the mirror, "
          + "naming it) or QUARANTINE (keep it in the catalog's quarantined_events and go on).")
  String poisonEventPolicy;

  @Option(names = "--continue-as-new-every", paramLabel = "BATCHES", description = "Continue the workflow as new after this many batches.")
  Integer continueAsNewEveryBatches;

  @Option(names = "--split-large-events", negatable = true,
      description = "Split change events over 16 MiB with $changeStreamSplitLargeEvent and reassemble them "
          + "(MongoDB 6.0.9+); without it such an event fails the batch (error 10334).")
  Boolean splitLargeEvents;

  @Option(names = "--auto-resync", negatable = true,
      description = "When the source has lost the history from the checkpoint, resynchronise without an operator "
          + "(as 'mirror resync' does) instead of failing (default: off).")
  Boolean autoResync;

  @Option(names = "--verify-documents-per-second", paramLabel = "N",
      description = "Source documents 'mirror verify' reads per second, at most, over all ranges (default "
          + MirrorSettings.DEFAULT_VERIFY_DOCUMENTS_PER_SECOND + ").")
  Integer verifyDocumentsPerSecond;

  @Option(names = "--snapshot", negatable = true,
      description = "Copy the documents that already exist before replicating changes (default: on).")
  Boolean snapshot;

  @Option(names = "--snapshot-documents-per-partition", paramLabel = "N",
      description = "Target documents per snapshot partition (one activity each).")
  Integer snapshotDocumentsPerPartition;

  @Option(names = "--snapshot-parallel-partitions", paramLabel = "N",
      description = "Snapshot partitions copied at the same time.")
  Integer snapshotParallelPartitions;

  @Option(names = "--snapshot-filter", paramLabel = "COLLECTION=QUERY",
      description = "Copy only the documents of COLLECTION matching QUERY (Extended JSON); repeat per collection; "
          + "an empty query {} removes a filter. Changes are replicated whatever the filter says.")
  Map<String, String> snapshotFilters;

  @Option(names = "--full-document-before-change", paramLabel = "MODE",
      description = "Pre-images on the change stream: off (default), whenAvailable or required (MongoDB 6.0+, "
          + "collections with changeStreamPreAndPostImages enabled).")
  String fullDocumentBeforeChange;

  @Option(names = "--history", paramLabel = "COLLECTION",
      description = "Also append every applied event of COLLECTION to its <table>_history table; repeatable.")
  List<String> history;

  @Option(names = "--no-history", paramLabel = "COLLECTION",
      description = "Stop appending COLLECTION's events to its history table (the table stays); repeatable.")
  List<String> noHistory;

  @Option(names = "--history-retention-days", paramLabel = "DAYS",
      description = "Prune history rows older than this many days (by commit time); 0 keeps them for ever.")
  Integer historyRetentionDays;

  @Option(names = "--columns", paramLabel = "COLLECTION:NAME=TYPE:PATH[,...]",
      description = "Typed columns of COLLECTION's table, written with doc: NAME the column, TYPE one of text, bigint, "
          + "numeric, 'double precision', boolean, timestamptz, uuid, jsonb, text[], PATH dotted (items.0.sku); "
          + "one option per collection, repeatable. On edit, adds (or redefines) columns and backfills them.")
  List<String> columns;

  @Option(names = "--columns-file", paramLabel = "FILE",
      description = "Typed columns from a JSON file: {\"orders\": [{\"name\": \"status\", \"type\": \"text\", "
          + "\"path\": \"status\"}]}.")
  Path columnsFile;

  @Option(names = "--remove-column", paramLabel = "COLLECTION:COLUMN",
      description = "Stop writing this typed column (its data stays unless --drop-column-data); repeatable.")
  List<String> removeColumns;

  @Option(names = "--drop-column-data",
      description = "With --remove-column: also drop the removed columns from the table.")
  Boolean dropColumnData;

  @Option(names = "--index", paramLabel = "COLLECTION:COLUMN",
      description = "Index this typed column (created concurrently once the snapshot is done); repeatable.")
  List<String> indexes;

  /**
   * The options given as an edit, which also adds {@code addCollections} (null for none). Its
   * {@link EditRequest#toJson JSON} is what the edit sends.
   */
  EditRequest asEdit(List<String> addCollections) {
    return new EditRequest(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize,
        excludedOperations == null ? null : excludedOperations.stream().filter(s -> !s.isBlank()).toList(),
        controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, snapshot, snapshotDocumentsPerPartition,
        snapshotParallelPartitions, snapshotFilters, addCollections, poisonEventPolicy, autoResync,
        fullDocumentBeforeChange, historySwitches(), historyRetentionDays, verifyDocumentsPerSecond,
        ColumnsOption.columns(columns, columnsFile), ColumnsOption.byCollection("--remove-column", removeColumns),
        dropColumnData, ColumnsOption.byCollection("--index", indexes), maxVisibilityDelay);
  }

  /** {@code --history} and {@code --no-history} as collection: on/off; null when neither is given. */
  private Map<String, Boolean> historySwitches() {
    if (history == null && noHistory == null) {
      return null;
    }
    Map<String, Boolean> switches = new LinkedHashMap<>();
    if (history != null) {
      history.forEach(collection -> switches.put(collection, true));
    }
    if (noHistory != null) {
      noHistory.forEach(collection -> switches.put(collection, false));
    }
    return switches;
  }

  /** The defaults with the options given applied. */
  MirrorSettings applyTo(MirrorSettings defaults) {
    EditRequest edit = asEdit(null);
    return edit.changesNothing() ? defaults : defaults.apply(edit);
  }
}
