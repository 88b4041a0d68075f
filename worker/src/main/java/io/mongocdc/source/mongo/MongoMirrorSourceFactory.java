package io.mongocdc.source.mongo;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.ports.StartPointCheck;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.OplogSpan;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The activities' source port on MongoDB: one client per source peer (connection strings are
 * resolved on the worker), a database-level change stream per mirror restricted to its
 * collections and excluded operations, validated when the mirror is set up.
 */
public final class MongoMirrorSourceFactory implements MirrorSourceFactory, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(MongoMirrorSourceFactory.class);

  private final PeerRegistry peers;
  private final Map<String, MongoClient> clients = new ConcurrentHashMap<>();

  public MongoMirrorSourceFactory(PeerRegistry peers) {
    this.peers = peers;
  }

  @Override
  public void validate(MirrorConfig mirror) {
    SourceValidationReport report;
    try {
      report = new SourceValidator(client(mirror)).validate(settings(mirror));
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
    report.warnings().forEach(warning -> log.warn("mirror {}: {}", mirror.name(), warning));
    if (!report.problems().isEmpty()) {
      throw new InvalidMirrorConfigurationException(new SourceValidationException(report.problems()).getMessage());
    }
  }

  @Override
  public ChangeStreamOpener openerFor(MirrorConfig mirror) {
    return new MongoChangeStreamOpener(ChangeStreamTarget.of(client(mirror), mirror.sourceDatabase()), settings(mirror));
  }

  @Override
  public SnapshotSource snapshotSource(MirrorConfig mirror) {
    return new MongoSnapshotSource(client(mirror), mirror.sourceDatabase());
  }

  @Override
  public OplogSpan oplogSpan(MirrorConfig mirror) {
    try {
      OplogWindow window = SourceValidator.readOplogWindow(client(mirror));
      return window == null ? null
          : new OplogSpan(window.oldest().getTime() & 0xFFFFFFFFL, window.newest().getTime() & 0xFFFFFFFFL);
    } catch (MongoException e) {
      // No privilege on local.oplog.rs, or a sharded cluster's mongos: status then shows no headroom.
      return null;
    }
  }

  @Override
  public StreamPosition currentPosition(MirrorConfig mirror) {
    try {
      BsonDocument reply = client(mirror).getDatabase("admin")
          .runCommand(new BsonDocument("ping", new BsonInt32(1)), BsonDocument.class);
      BsonTimestamp operationTime = reply.containsKey("operationTime")
          ? reply.getTimestamp("operationTime")
          : reply.getDocument("$clusterTime").getTimestamp("clusterTime");
      return StreamPosition.atOperationTime(operationTime);
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  /** Judged by the oplog's oldest entry where the source lets it be read, then by the server itself. */
  @Override
  public void requireHistoryHolds(MirrorConfig mirror, StreamPosition start) {
    OplogWindow window;
    try {
      window = SourceValidator.readOplogWindow(client(mirror));
    } catch (MongoException e) {
      window = null; // no privilege on local.oplog.rs, or a mongos: the change stream still says
    }
    try {
      StartPointCheck.require(start, currentPosition(mirror), window == null ? null : window.oldest(),
          openerFor(mirror));
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  @Override
  public void close() {
    clients.values().forEach(MongoClient::close);
    clients.clear();
  }

  static MongoSourceSettings settings(MirrorConfig mirror) {
    List<String> collections = mirror.collections().stream().map(c -> mirror.sourceDatabase() + "." + c).toList();
    MongoSourceSettings defaults = MongoSourceSettings.of(mirror.sourceDatabase(), collections);
    return new MongoSourceSettings(mirror.sourceDatabase(), collections,
        new LinkedHashSet<>(mirror.settings().excludedOperations()), defaults.cursorBatchSize(),
        defaults.maxAwaitTime(), mirror.settings().splitLargeEvents(),
        PreImageMode.ofSetting(mirror.settings().history().fullDocumentBeforeChange()));
  }

  private MongoClient client(MirrorConfig mirror) {
    return clients.computeIfAbsent(mirror.sourcePeer(), name -> MongoClients.create(peers.resolve(name).connectionString()));
  }
}
