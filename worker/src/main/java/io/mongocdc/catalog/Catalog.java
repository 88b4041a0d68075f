package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.BATCHES;
import static io.mongocdc.catalog.jooq.Tables.CHECKPOINTS;
import static io.mongocdc.catalog.jooq.Tables.MIRRORS;
import static io.mongocdc.catalog.jooq.Tables.PEERS;
import static io.mongocdc.catalog.jooq.Tables.TABLE_COUNTERS;

import io.mongocdc.catalog.jooq.tables.records.MirrorsRecord;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.MirrorPhase;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Access to the catalog (schema {@code mongo_cdc}) with jOOQ classes generated from the
 * catalog's Flyway migrations. {@link #open} migrates the catalog first and fails fast if it
 * cannot be used (see {@link CatalogMigrator}).
 */
public final class Catalog {

  /** Peer kinds, as stored in {@code peers.kind}. */
  public enum PeerKind {
    MONGODB,
    POSTGRES;

    String dbValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  // Option names that would carry a credential, and connection strings with user:password@.
  private static final Set<String> SECRET_OPTION_WORDS =
      Set.of("password", "passwd", "pwd", "secret", "token", "credential", "credentials", "key");
  private static final Pattern URI_WITH_PASSWORD = Pattern.compile("://[^/@\\s:]+:[^/@\\s]+@");

  private final DSLContext dsl;
  private final CheckpointStore checkpoints;
  private final BatchHistory batches;
  private final QuarantineStore quarantine;
  private final SnapshotStore snapshots;
  private final MirrorTableStore mirrorTables;

  private Catalog(DSLContext dsl) {
    this.dsl = dsl;
    this.checkpoints = new CheckpointStore(dsl);
    this.batches = new BatchHistory(dsl);
    this.quarantine = new QuarantineStore(dsl);
    this.snapshots = new SnapshotStore(dsl);
    this.mirrorTables = new MirrorTableStore(dsl);
  }

  /** Migrates the catalog (failing fast if it cannot be used), then opens it. */
  public static Catalog open(DataSource dataSource) {
    CatalogMigrator.migrate(dataSource);
    return new Catalog(DSL.using(dataSource, SQLDialect.POSTGRES));
  }

  public DSLContext dsl() {
    return dsl;
  }

  public CheckpointStore checkpoints() {
    return checkpoints;
  }

  public SnapshotStore snapshots() {
    return snapshots;
  }

  public BatchHistory batches() {
    return batches;
  }

  public QuarantineStore quarantine() {
    return quarantine;
  }

  /** Which mirror each destination table belongs to. */
  public MirrorTableStore mirrorTables() {
    return mirrorTables;
  }

  /**
   * Creates or updates a peer. {@code optionsJson} holds non-secret options only; an option
   * whose name says it is a credential, or a connection string with a password, is refused.
   */
  public void upsertPeer(String name, PeerKind kind, String optionsJson) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    String options = optionsJson == null ? "{}" : optionsJson;
    refuseSecrets(name, options);
    dsl.insertInto(PEERS)
        .set(PEERS.NAME, name)
        .set(PEERS.KIND, kind.dbValue())
        .set(PEERS.OPTIONS, JSONB.valueOf(options))
        .onConflict(PEERS.NAME)
        .doUpdate()
        .set(PEERS.KIND, kind.dbValue())
        .set(PEERS.OPTIONS, JSONB.valueOf(options))
        .set(PEERS.UPDATED_AT, DSL.currentOffsetDateTime())
        .execute();
  }

  /** Creates a mirror between two existing peers, setting up; fails if the name is taken. */
  public void createMirror(String name, String sourcePeer, String destinationPeer, String configJson) {
    dsl.insertInto(MIRRORS)
        .set(MIRRORS.NAME, name)
        .set(MIRRORS.SOURCE_PEER, sourcePeer)
        .set(MIRRORS.DESTINATION_PEER, destinationPeer)
        .set(MIRRORS.CONFIG, JSONB.valueOf(configJson == null ? "{}" : configJson))
        .set(MIRRORS.STATUS, statusOf(MirrorPhase.SETTING_UP))
        .set(MIRRORS.CONFIG_UPDATED_AT, DSL.currentOffsetDateTime())
        .execute();
  }

  /**
   * A state the mirror's workflow entered, applied only if it is newer than the recorded one:
   * later by the workflow's clock, or as late and later in the workflow's count of changes.
   * {@code error} (with its time) is kept as the last error; the failure type and attempt count
   * describe the current state and are cleared by one without them. {@code startedFrom}, where
   * the mirror's stream started, is written when given and kept when null.
   *
   * @return true if the row now shows this state
   */
  public boolean recordMirrorState(String name, MirrorPhase status, String reason, String error, String failureType,
      Integer failedAttempts, Instant at, long sequence, String configJson, Checkpoint startedFrom,
      String fieldRulesWrittenJson) {
    OffsetDateTime when = OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
    JSONB config = JSONB.valueOf(configJson);
    var update = dsl.update(MIRRORS)
        .set(MIRRORS.STATUS, statusOf(status))
        .set(MIRRORS.STATUS_REASON, reason)
        .set(MIRRORS.FAILURE_TYPE, failureType)
        .set(MIRRORS.FAILED_ATTEMPTS, failedAttempts)
        .set(MIRRORS.STATUS_CHANGED_AT, when)
        .set(MIRRORS.STATUS_SEQ, sequence)
        .set(MIRRORS.CONFIG_UPDATED_AT,
            DSL.when(MIRRORS.CONFIG.isDistinctFrom(config), DSL.val(when)).otherwise(MIRRORS.CONFIG_UPDATED_AT))
        .set(MIRRORS.CONFIG, config)
        .set(MIRRORS.UPDATED_AT, DSL.currentOffsetDateTime());
    if (error != null) {
      update = update.set(MIRRORS.LAST_ERROR, error).set(MIRRORS.LAST_ERROR_AT, when);
    }
    if (fieldRulesWrittenJson != null) {
      update = update.set(MIRRORS.FIELD_RULES_WRITTEN, JSONB.valueOf(fieldRulesWrittenJson));
    }
    if (startedFrom != null) {
      long seconds = startedFrom.clusterTimeSeconds();
      update = update.set(MIRRORS.START_RESUME_TOKEN, startedFrom.resumeToken())
          .set(MIRRORS.START_CLUSTER_TIME, seconds << 32 | (startedFrom.clusterTimeIncrement() & 0xFFFFFFFFL))
          .set(MIRRORS.START_CLUSTER_TIME_AT, OffsetDateTime.ofInstant(Instant.ofEpochSecond(seconds), ZoneOffset.UTC));
    }
    return update
        .where(MIRRORS.NAME.eq(name))
        .and(MIRRORS.STATUS_CHANGED_AT.isNull()
            .or(DSL.row(MIRRORS.STATUS_CHANGED_AT, MIRRORS.STATUS_SEQ).lt(when, sequence)))
        .execute() == 1;
  }

  /**
   * How far the destination's visible rows reach, as a running batch reports it: moves forward
   * only, so a late report never makes the mirror look further behind than it was.
   */
  public void recordVisibleThrough(String name, Instant visibleThrough) {
    OffsetDateTime through = OffsetDateTime.ofInstant(visibleThrough, ZoneOffset.UTC);
    dsl.update(MIRRORS)
        .set(MIRRORS.VISIBLE_THROUGH, DSL.greatest(DSL.val(through), MIRRORS.VISIBLE_THROUGH))
        .where(MIRRORS.NAME.eq(name))
        .execute();
  }

  /** When the mirror's running batch began to wait for destination connections; null: it does not wait. */
  public void recordWaitingSince(String name, Instant since) {
    dsl.update(MIRRORS)
        .set(MIRRORS.WAITING_SINCE, since == null ? null : OffsetDateTime.ofInstant(since, ZoneOffset.UTC))
        .where(MIRRORS.NAME.eq(name))
        .execute();
  }

  /** The source's oplog span as a batch saw it at {@code observedAt} (the last report wins). */
  public void recordOplogSpan(String name, long oldestSeconds, long newestSeconds, Instant observedAt) {
    dsl.update(MIRRORS)
        .set(MIRRORS.OPLOG_OLDEST_SECONDS, oldestSeconds)
        .set(MIRRORS.OPLOG_NEWEST_SECONDS, newestSeconds)
        .set(MIRRORS.OPLOG_OBSERVED_AT, OffsetDateTime.ofInstant(observedAt, ZoneOffset.UTC))
        .where(MIRRORS.NAME.eq(name))
        .execute();
  }

  public Optional<MirrorsRecord> mirror(String name) {
    return dsl.selectFrom(MIRRORS).where(MIRRORS.NAME.eq(name)).fetchOptional();
  }

  /**
   * Deletes a mirror's rows: the tables recorded for it, counters, batch history, checkpoint,
   * then the mirror itself (its snapshot plans and failed attempts go with it, by cascade).
   */
  public void forgetMirror(String name) {
    dsl.transaction(configuration -> {
      DSLContext tx = configuration.dsl();
      MirrorTableStore.forget(tx, name);
      tx.deleteFrom(TABLE_COUNTERS).where(TABLE_COUNTERS.MIRROR_NAME.eq(name)).execute();
      tx.deleteFrom(BATCHES).where(BATCHES.MIRROR_NAME.eq(name)).execute();
      tx.deleteFrom(CHECKPOINTS).where(CHECKPOINTS.MIRROR_NAME.eq(name)).execute();
      tx.deleteFrom(MIRRORS).where(MIRRORS.NAME.eq(name)).execute();
    });
  }

  /**
   * The fingerprint of the field hash key mirror {@code name} hashes with: {@code fingerprint} if it
   * had none (this worker is the first to hash for it), else the one recorded first.
   */
  public String recordFieldHashKeyFingerprint(String name, String fingerprint) {
    return dsl.update(MIRRORS)
        .set(MIRRORS.FIELD_HASH_KEY_FINGERPRINT, DSL.coalesce(MIRRORS.FIELD_HASH_KEY_FINGERPRINT, DSL.val(fingerprint)))
        .where(MIRRORS.NAME.eq(name))
        .returning(MIRRORS.FIELD_HASH_KEY_FINGERPRINT)
        .fetchOptional(MIRRORS.FIELD_HASH_KEY_FINGERPRINT)
        .orElse(fingerprint);
  }

  /** The mirror's {@code field_rules_written}, if the mirror is registered and has one. */
  public Optional<String> fieldRulesWritten(String name) {
    return dsl.select(MIRRORS.FIELD_RULES_WRITTEN).from(MIRRORS).where(MIRRORS.NAME.eq(name))
        .fetchOptional(MIRRORS.FIELD_RULES_WRITTEN).map(JSONB::data);
  }

  /** Replaces the mirror's {@code field_rules_written} by {@code change} of it, in one transaction; nothing if it has none. */
  public void changeFieldRulesWritten(String name, UnaryOperator<String> change) {
    dsl.transaction(configuration -> {
      DSLContext tx = DSL.using(configuration);
      Optional<JSONB> recorded = tx.select(MIRRORS.FIELD_RULES_WRITTEN).from(MIRRORS).where(MIRRORS.NAME.eq(name))
          .forUpdate().fetchOptional(MIRRORS.FIELD_RULES_WRITTEN);
      if (recorded.isPresent()) {
        tx.update(MIRRORS).set(MIRRORS.FIELD_RULES_WRITTEN, JSONB.valueOf(change.apply(recorded.get().data())))
            .where(MIRRORS.NAME.eq(name)).execute();
      }
    });
  }

  /** Where the rewrite of rows before an added field rule is ({@code null}: none running) and the rows it rewrote. */
  public void recordFieldRuleRewrite(String name, String state, long rows) {
    dsl.update(MIRRORS)
        .set(MIRRORS.FIELD_RULE_REWRITE, state)
        .set(MIRRORS.FIELD_RULE_REWRITE_ROWS, rows)
        .where(MIRRORS.NAME.eq(name))
        .execute();
  }

  /**
   * Sets the status of a mirror no workflow has recorded a state for ({@code status_changed_at}
   * null): one whose workflow run started before workflows recorded their states.
   */
  public void setUntrackedMirrorStatus(String name, MirrorPhase status, String reason) {
    dsl.update(MIRRORS)
        .set(MIRRORS.STATUS, statusOf(status))
        .set(MIRRORS.STATUS_REASON, reason)
        .set(MIRRORS.UPDATED_AT, DSL.currentOffsetDateTime())
        .where(MIRRORS.NAME.eq(name))
        .and(MIRRORS.STATUS_CHANGED_AT.isNull())
        .execute();
  }

  static void refuseSecrets(String peer, String optionsJson) {
    String lower = optionsJson.toLowerCase(Locale.ROOT);
    for (String word : SECRET_OPTION_WORDS) {
      if (Pattern.compile("\"[^\"]*(?<![a-z])" + word + "(?![a-z])[^\"]*\"\\s*:")
          .matcher(lower)
          .find()) {
        throw new IllegalArgumentException(
            "peer " + peer + ": options must not hold credentials (found an option named like '"
                + word + "'); the worker resolves credentials from its own configuration");
      }
    }
    if (URI_WITH_PASSWORD.matcher(optionsJson).find()) {
      throw new IllegalArgumentException(
          "peer " + peer + ": options must not hold a connection string with a password");
    }
  }

  /** A phase as {@code mirrors.status} stores it: its name in lower case. */
  static String statusOf(MirrorPhase phase) {
    return phase.name().toLowerCase(Locale.ROOT);
  }

  /** The phase {@code mirrors.status} stores ({@link #statusOf}); null for a status no phase has. */
  static MirrorPhase phaseOf(String status) {
    try {
      return MirrorPhase.valueOf(status.toUpperCase(Locale.ROOT));
    } catch (RuntimeException e) {
      return null;
    }
  }
}
