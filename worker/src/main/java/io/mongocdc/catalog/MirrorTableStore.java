package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.MIRROR_TABLES;

import io.mongocdc.ports.MirrorTable;
import io.mongocdc.catalog.jooq.tables.records.MirrorTablesRecord;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.InsertValuesStep5;
import org.jooq.Row3;
import org.jooq.impl.DSL;

/** Which mirror each destination table belongs to ({@code mirror_tables}). */
public final class MirrorTableStore {

  /** A table recorded for another mirror than the one asking. */
  public record Taken(MirrorTable table, String owner) {}

  // One order for every claim, so two mirrors claiming overlapping tables at once take the
  // index's locks in the same order and cannot deadlock.
  private static final Comparator<MirrorTable> KEY_ORDER = Comparator.comparing(MirrorTable::destinationPeer)
      .thenComparing(MirrorTable::schema).thenComparing(MirrorTable::table);

  private final DSLContext dsl;

  public MirrorTableStore(DSLContext dsl) {
    this.dsl = Objects.requireNonNull(dsl, "dsl");
  }

  /**
   * Records the tables for {@code mirror} in one transaction unless one of them is another
   * mirror's; then nothing is recorded. Tables already the mirror's are left as they are.
   *
   * @return the first table that is another mirror's, if any
   */
  public Optional<Taken> claim(String mirror, List<MirrorTable> tables) {
    if (tables.isEmpty()) {
      return Optional.empty();
    }
    List<MirrorTable> sorted = tables.stream().sorted(KEY_ORDER).toList();
    try {
      dsl.transaction(configuration -> {
        DSLContext tx = configuration.dsl();
        InsertValuesStep5<MirrorTablesRecord, String, String, String, String, String> insert = tx.insertInto(MIRROR_TABLES,
            MIRROR_TABLES.DESTINATION_PEER, MIRROR_TABLES.DESTINATION_SCHEMA, MIRROR_TABLES.DESTINATION_TABLE,
            MIRROR_TABLES.MIRROR_NAME, MIRROR_TABLES.SOURCE_NAMESPACE);
        for (MirrorTable table : sorted) {
          insert = insert.values(table.destinationPeer(), table.schema(), table.table(), mirror, table.sourceNamespace());
        }
        // A concurrent claim of the same table waits here for the other transaction, then sees its row.
        insert.onConflictDoNothing().execute();
        Optional<Taken> taken = firstTaken(tx, mirror, sorted);
        if (taken.isPresent()) {
          throw new Refused(taken.get()); // rolls back what this claim inserted: all or none
        }
      });
    } catch (Refused refused) {
      return Optional.of(refused.taken);
    }
    return Optional.empty();
  }

  /** Ends a claim's transaction with a rollback, carrying the table that was another's. */
  private static final class Refused extends RuntimeException {
    private final transient Taken taken;

    Refused(Taken taken) {
      super(null, null, false, false);
      this.taken = taken;
    }
  }

  /** The first of {@code tables} recorded for another mirror than {@code mirror}, if any. */
  public Optional<Taken> firstTaken(String mirror, List<MirrorTable> tables) {
    return tables.isEmpty() ? Optional.empty() : firstTaken(dsl, mirror, tables.stream().sorted(KEY_ORDER).toList());
  }

  /** The tables recorded for {@code mirror}, in key order. */
  public List<MirrorTable> tablesOf(String mirror) {
    return dsl.selectFrom(MIRROR_TABLES)
        .where(MIRROR_TABLES.MIRROR_NAME.eq(mirror))
        .orderBy(MIRROR_TABLES.DESTINATION_PEER, MIRROR_TABLES.DESTINATION_SCHEMA, MIRROR_TABLES.DESTINATION_TABLE)
        .fetch(MirrorTableStore::table);
  }

  /** The mirror {@code table} is recorded for, if any. */
  public Optional<String> ownerOf(MirrorTable table) {
    return dsl.select(MIRROR_TABLES.MIRROR_NAME).from(MIRROR_TABLES)
        .where(DSL.row(MIRROR_TABLES.DESTINATION_PEER, MIRROR_TABLES.DESTINATION_SCHEMA, MIRROR_TABLES.DESTINATION_TABLE)
            .eq(table.destinationPeer(), table.schema(), table.table()))
        .fetchOptional(MIRROR_TABLES.MIRROR_NAME);
  }

  /** Forgets the mirror's tables, within the caller's transaction. */
  static void forget(DSLContext tx, String mirror) {
    tx.deleteFrom(MIRROR_TABLES).where(MIRROR_TABLES.MIRROR_NAME.eq(mirror)).execute();
  }

  private static Optional<Taken> firstTaken(DSLContext ctx, String mirror, List<MirrorTable> sorted) {
    List<Row3<String, String, String>> keys = sorted.stream()
        .map(t -> DSL.row(t.destinationPeer(), t.schema(), t.table()))
        .toList();
    return ctx.selectFrom(MIRROR_TABLES)
        .where(DSL.row(MIRROR_TABLES.DESTINATION_PEER, MIRROR_TABLES.DESTINATION_SCHEMA, MIRROR_TABLES.DESTINATION_TABLE)
            .in(keys))
        .and(MIRROR_TABLES.MIRROR_NAME.ne(mirror))
        .orderBy(MIRROR_TABLES.DESTINATION_PEER, MIRROR_TABLES.DESTINATION_SCHEMA, MIRROR_TABLES.DESTINATION_TABLE)
        .limit(1)
        .fetchOptional(row -> new Taken(table(row), row.getMirrorName()));
  }

  private static MirrorTable table(MirrorTablesRecord row) {
    return new MirrorTable(row.getDestinationPeer(), row.getDestinationSchema(), row.getDestinationTable(),
        row.getSourceNamespace());
  }
}
