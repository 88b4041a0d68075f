package io.mongocdc.testing;

import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.activities.InMemorySnapshotCatalog;
import io.mongocdc.activities.InMemoryTableOwnership;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.catalog.PostgresSnapshotCatalog;
import io.mongocdc.catalog.PostgresTableOwnership;
import io.mongocdc.catalog.VerifyStore;
import io.mongocdc.destination.PostgresMirrorDestination;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.ports.SnapshotCatalog;
import io.mongocdc.ports.TableOwnership;
import io.mongocdc.ports.VerifyCatalog;
import io.mongocdc.wiring.WorkerPorts;
import java.util.Objects;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The {@link WorkerPorts} of a test worker: a source the test gives, and either everything else in
 * memory ({@link #inMemory}) or the PostgreSQL destination and catalog ({@link #postgres}). A test
 * replaces only the ports it fakes.
 *
 * <pre>
 * WorkerPorts ports = TestPorts.postgres(fixture.catalog(), fixture.peers()).source(world.source()).build();
 * </pre>
 */
public final class TestPorts {

  private TestPorts() {}

  /** In memory: a new destination, checkpoint catalog, snapshot catalog and table ownership; no verify runs. */
  public static Builder inMemory() {
    return new Builder(null, tables -> new InMemoryDestination(), new InMemoryCatalog(), new InMemorySnapshotCatalog(),
        new InMemoryTableOwnership());
  }

  /**
   * The catalog in {@code catalogData} (migrated on opening) for checkpoints, snapshots and table
   * ownership, and the PostgreSQL destination of the peers in {@code peers}, recording its tables
   * there; no verify runs unless {@link Builder#verifyRuns()}.
   */
  public static Builder postgres(DataSource catalogData, PeerRegistry peers) {
    Catalog catalog = Catalog.open(catalogData);
    return new Builder(catalog, tables -> new PostgresMirrorDestination(peers, PostgresSinkOptions.defaults(), tables),
        new PostgresCheckpointCatalog(catalog), new PostgresSnapshotCatalog(catalog), new PostgresTableOwnership(catalog));
  }

  /** {@link #postgres(DataSource, PeerRegistry)} over a workflow test's databases and peers. */
  public static Builder postgres(WorkflowTestExtension fixture) {
    return postgres(fixture.catalog(), fixture.peers());
  }

  /** The ports a test worker runs with; unset ones are those {@link #inMemory} or {@link #postgres} chose. */
  public static final class Builder {
    private final Catalog catalog;
    private MirrorSourceFactory source;
    private Function<TableOwnership, MirrorDestination> destination;
    private CheckpointCatalog checkpoints;
    private SnapshotCatalog snapshots;
    private TableOwnership tables;
    private VerifyCatalog verifications = VerifyCatalog.NONE;

    private Builder(Catalog catalog, Function<TableOwnership, MirrorDestination> destination,
        CheckpointCatalog checkpoints, SnapshotCatalog snapshots, TableOwnership tables) {
      this.catalog = catalog;
      this.destination = destination;
      this.checkpoints = checkpoints;
      this.snapshots = snapshots;
      this.tables = tables;
    }

    public Builder source(MirrorSourceFactory source) {
      this.source = Objects.requireNonNull(source);
      return this;
    }

    public Builder destination(MirrorDestination destination) {
      Objects.requireNonNull(destination);
      this.destination = tables -> destination;
      return this;
    }

    /** The destination, made from the table ownership the ports end with. */
    public Builder destination(Function<TableOwnership, MirrorDestination> destination) {
      this.destination = Objects.requireNonNull(destination);
      return this;
    }

    public Builder checkpoints(CheckpointCatalog checkpoints) {
      this.checkpoints = Objects.requireNonNull(checkpoints);
      return this;
    }

    public Builder snapshots(SnapshotCatalog snapshots) {
      this.snapshots = Objects.requireNonNull(snapshots);
      return this;
    }

    public Builder tables(TableOwnership tables) {
      this.tables = Objects.requireNonNull(tables);
      return this;
    }

    public Builder verifications(VerifyCatalog verifications) {
      this.verifications = Objects.requireNonNull(verifications);
      return this;
    }

    /** The catalog's verify runs ({@code mirror verify}); only for {@link #postgres}. */
    public Builder verifyRuns() {
      if (catalog == null) {
        throw new IllegalStateException("verify runs live in the PostgreSQL catalog: use TestPorts.postgres");
      }
      return verifications(new VerifyStore(catalog));
    }

    public WorkerPorts build() {
      Objects.requireNonNull(source, "the test's ports need a source");
      return new WorkerPorts(source, destination.apply(tables), checkpoints, snapshots, tables, verifications);
    }
  }
}
