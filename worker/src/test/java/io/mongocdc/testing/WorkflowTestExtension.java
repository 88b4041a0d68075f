package io.mongocdc.testing;

import io.mongocdc.ports.PeerRegistry;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The fixture of a workflow test, as the SDK's {@code TestWorkflowExtension} provides one: a test
 * class's own catalog and destination databases on the shared embedded PostgreSQL (made on first
 * use, kept for the class) and the Temporal test servers with workers a test starts, each closed
 * after the test that started it, whether it passed or not.
 *
 * <pre>
 * &#64;RegisterExtension
 * static final WorkflowTestExtension fixture = WorkflowTestExtension.withDatabases("snapshot", "snap-mongo", "snap-pg");
 * ...
 * fixture.start().startWorker(fixture.peers(), ports);
 * </pre>
 *
 * <p>Registered on a static field it serves the whole class; on an instance field, one test.
 */
public final class WorkflowTestExtension implements AfterEachCallback {

  private final String prefix;
  private final String sourcePeer;
  private final String destinationPeer;
  private MirrorDatabases databases;
  private final List<WorkerEnvironment> started = new ArrayList<>();

  private WorkflowTestExtension(String prefix, String sourcePeer, String destinationPeer) {
    this.prefix = prefix;
    this.sourcePeer = sourcePeer;
    this.destinationPeer = destinationPeer;
  }

  /**
   * Databases {@code <prefix>_catalog_N} (migrated) and {@code <prefix>_dest_N}, and a peer
   * registry naming a scripted source {@code sourcePeer} and the destination {@code destinationPeer}.
   */
  public static WorkflowTestExtension withDatabases(String prefix, String sourcePeer, String destinationPeer) {
    return new WorkflowTestExtension(prefix, sourcePeer, destinationPeer);
  }

  /** Test servers only: the test's ports need no database. */
  public static WorkflowTestExtension serversOnly() {
    return new WorkflowTestExtension(null, null, null);
  }

  /** The catalog database, migrated. */
  public DataSource catalog() {
    return databases().catalog();
  }

  /** The destination database. */
  public DataSource destination() {
    return databases().destination();
  }

  /** The peers naming the scripted source and the destination database. */
  public PeerRegistry peers() {
    return databases().peers();
  }

  private synchronized MirrorDatabases databases() {
    if (prefix == null) {
      throw new IllegalStateException("this fixture has no databases: use withDatabases");
    }
    if (databases == null) {
      try {
        databases = MirrorDatabases.create(prefix, sourcePeer, destinationPeer);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create the databases of " + prefix, e);
      }
    }
    return databases;
  }

  /** A test server with the default options and no worker yet; closed after the test. */
  public WorkerEnvironment start() {
    return start(WorkerEnvironment.builder());
  }

  /** A test server built by {@code builder}, no worker yet; closed after the test. */
  public synchronized WorkerEnvironment start(WorkerEnvironment.Builder builder) {
    WorkerEnvironment environment = builder.start();
    started.add(environment);
    return environment;
  }

  /** Whether the test running has started a test server. */
  public synchronized boolean running() {
    return !started.isEmpty();
  }

  /** The test server the test started last. */
  public synchronized WorkerEnvironment temporal() {
    if (started.isEmpty()) {
      throw new IllegalStateException("the test has started no test server");
    }
    return started.get(started.size() - 1);
  }

  /** Closes the test's servers and workers, the last started first. */
  @Override
  public void afterEach(ExtensionContext context) {
    List<WorkerEnvironment> closing;
    synchronized (this) {
      closing = new ArrayList<>(started);
      started.clear();
    }
    RuntimeException failure = null;
    for (int i = closing.size() - 1; i >= 0; i--) {
      try {
        closing.get(i).close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
