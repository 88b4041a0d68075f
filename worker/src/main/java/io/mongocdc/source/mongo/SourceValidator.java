package io.mongocdc.source.mongo;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.mongocdc.secrets.Redaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;

/**
 * Checks, when a mirror is created, that the source can serve it: a replica set or sharded
 * cluster, MongoDB 5.0 or newer, the privileges the stream needs, collections that exist; and
 * measures the oplog window.
 */
public final class SourceValidator {

  private final MongoClient client;

  public SourceValidator(MongoClient client) {
    this.client = client;
  }

  public SourceValidationReport validate(MongoSourceSettings settings) {
    List<String> problems = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    String topology = "unknown";
    String version = "unknown";
    try {
      topology = SourceChecks.topology(command("admin", new BsonDocument("hello", new BsonInt32(1))));
      SourceChecks.topologyProblem(topology).ifPresent(problems::add);
      version = command("admin", new BsonDocument("buildInfo", new BsonInt32(1))).getString("version").getValue();
      SourceChecks.versionProblem(version).ifPresent(problems::add);
      BsonDocument status = command("admin",
          new BsonDocument("connectionStatus", new BsonInt32(1)).append("showPrivileges", org.bson.BsonBoolean.TRUE));
      List<String> missing = SourceChecks.missingPrivileges(status, settings.collections());
      if (!missing.isEmpty()) {
        problems.add("the mirror's MongoDB user lacks " + String.join(", ", missing));
      }
      problems.addAll(missingCollections(settings.collections()));
      if (settings.fullDocumentBeforeChange() != PreImageMode.OFF) {
        SourceChecks.checkPreImages(settings.fullDocumentBeforeChange(), version, settings.collections(),
            collectionOptions(settings.collections()), problems, warnings);
      }
    } catch (MongoException e) {
      problems.add("cannot inspect the source: " + Redaction.redact(e.getMessage()));
    }
    OplogWindow window = null;
    if (topology.startsWith("replica set")) {
      try {
        window = oplogWindow();
      } catch (MongoException e) {
        warnings.add("cannot read the oplog window (the user needs read on local.oplog.rs to report it): "
            + Redaction.redact(e.getMessage()));
      }
    }
    return new SourceValidationReport(topology, version, window, problems, warnings);
  }

  private List<String> missingCollections(List<String> collections) {
    List<String> missing = new ArrayList<>();
    Set<String> checkedDbs = new HashSet<>();
    Set<String> existing = new HashSet<>();
    for (String name : collections) {
      String db = name.substring(0, name.indexOf('.'));
      if (checkedDbs.add(db)) {
        client.getDatabase(db).listCollectionNames().forEach(coll -> existing.add(db + "." + coll));
      }
      if (!existing.contains(name)) {
        missing.add("collection " + name + " does not exist");
      }
    }
    return missing;
  }

  /** Each existing watched collection's {@code listCollections} options. */
  private Map<String, BsonDocument> collectionOptions(List<String> collections) {
    Map<String, BsonDocument> options = new HashMap<>();
    Set<String> dbs = new LinkedHashSet<>();
    collections.forEach(name -> dbs.add(name.substring(0, name.indexOf('.'))));
    for (String db : dbs) {
      for (BsonDocument info : client.getDatabase(db).listCollections(BsonDocument.class)) {
        options.put(db + "." + info.getString("name").getValue(), info.getDocument("options", new BsonDocument()));
      }
    }
    return options;
  }

  private OplogWindow oplogWindow() {
    return readOplogWindow(client);
  }

  /** The first and last oplog entries' times, or null if the oplog is empty. Needs read on local.oplog.rs. */
  public static OplogWindow readOplogWindow(MongoClient client) {
    MongoCollection<BsonDocument> oplog = client.getDatabase("local").getCollection("oplog.rs", BsonDocument.class);
    BsonDocument natural = new BsonDocument("$natural", new BsonInt32(1));
    BsonDocument reverse = new BsonDocument("$natural", new BsonInt32(-1));
    BsonDocument projection = new BsonDocument("ts", new BsonInt32(1));
    BsonDocument first = oplog.find().sort(natural).projection(projection).limit(1).first();
    BsonDocument last = oplog.find().sort(reverse).projection(projection).limit(1).first();
    if (first == null || last == null) {
      return null;
    }
    BsonTimestamp oldest = first.getTimestamp("ts");
    BsonTimestamp newest = last.getTimestamp("ts");
    return new OplogWindow(oldest, newest);
  }

  private BsonDocument command(String db, BsonDocument command) {
    return client.getDatabase(db).runCommand(command, BsonDocument.class);
  }
}
