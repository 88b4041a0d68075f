package io.mongocdc.source.mongo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The checks a mirror's source must pass, as pure functions over the server's own reply
 * documents ({@code hello}, {@code buildInfo}, {@code connectionStatus}), so they are tested
 * without a server.
 */
public final class SourceChecks {

  static final int MIN_MAJOR_VERSION = 5;

  private SourceChecks() {}

  /** "replica set NAME", "sharded cluster" or "standalone", from a {@code hello} reply. */
  public static String topology(BsonDocument hello) {
    if (hello.containsKey("setName")) {
      return "replica set " + hello.getString("setName").getValue();
    }
    if ("isdbgrid".equals(hello.getString("msg", new org.bson.BsonString("")).getValue())) {
      return "sharded cluster";
    }
    return "standalone";
  }

  /** Why this topology cannot serve change streams, if it cannot. */
  public static Optional<String> topologyProblem(String topology) {
    if (topology.equals("standalone")) {
      return Optional.of("the server is a standalone mongod; change streams need a replica set or a sharded"
          + " cluster (a single-node replica set is enough: start mongod with --replSet and run rs.initiate())");
    }
    return Optional.empty();
  }

  /** Why this server version is too old, if it is. */
  public static Optional<String> versionProblem(String version) {
    int major;
    try {
      major = Integer.parseInt(version.split("\\.")[0]);
    } catch (RuntimeException e) {
      return Optional.of("cannot read the server version '" + version + "'");
    }
    if (major < MIN_MAJOR_VERSION) {
      return Optional.of("MongoDB " + version + " is too old: mongo-cdc needs " + MIN_MAJOR_VERSION + ".0 or newer");
    }
    return Optional.empty();
  }

  /**
   * The watched collections on which the connected user lacks {@code find} or
   * {@code changeStream}, from a {@code connectionStatus} reply with {@code showPrivileges}.
   * Empty when access control is off (no authenticated user).
   */
  public static List<String> missingPrivileges(BsonDocument connectionStatus, List<String> collections) {
    BsonDocument authInfo = connectionStatus.getDocument("authInfo", new BsonDocument());
    if (authInfo.getArray("authenticatedUsers", new BsonArray()).isEmpty()) {
      return List.of();
    }
    BsonArray privileges = authInfo.getArray("authenticatedUserPrivileges", new BsonArray());
    List<String> missing = new ArrayList<>();
    for (String name : collections) {
      int dot = name.indexOf('.');
      String db = name.substring(0, dot);
      String coll = name.substring(dot + 1);
      for (String action : List.of("find", "changeStream")) {
        if (!granted(privileges, db, coll, action)) {
          missing.add(action + " on " + name);
        }
      }
    }
    return missing;
  }

  private static boolean granted(BsonArray privileges, String db, String coll, String action) {
    for (BsonValue value : privileges) {
      BsonDocument privilege = value.asDocument();
      BsonDocument resource = privilege.getDocument("resource", new BsonDocument());
      boolean covers = resource.getBoolean("anyResource", org.bson.BsonBoolean.FALSE).getValue()
          || (matches(resource, "db", db) && matches(resource, "collection", coll));
      if (covers && privilege.getArray("actions", new BsonArray()).contains(new org.bson.BsonString(action))) {
        return true;
      }
    }
    return false;
  }

  /** A resource field matches a name exactly, or is "" (any). */
  private static boolean matches(BsonDocument resource, String field, String name) {
    BsonValue value = resource.get(field);
    return value != null && value.isString()
        && (value.asString().getValue().isEmpty() || value.asString().getValue().equals(name));
  }

  /** Pre-images need MongoDB 6.0: an older server refuses {@code fullDocumentBeforeChange}. */
  static final int MIN_PRE_IMAGE_MAJOR_VERSION = 6;

  /**
   * What pre-images on the stream mean for the watched collections, from the server version and
   * each collection's {@code listCollections} options: with {@code required}, a collection
   * without {@code changeStreamPreAndPostImages} is a problem (the stream would fail on its first
   * update or delete); with {@code whenAvailable}, a warning (its events carry no pre-image). Both
   * name the collections and the command that enables it.
   *
   * @param optionsByCollection {@code db.collection} to its {@code options} document; a watched
   *     collection missing here is not checked (it does not exist, reported elsewhere)
   * @param problems where problems go
   * @param warnings where warnings go
   */
  public static void checkPreImages(PreImageMode mode, String version, List<String> collections,
      Map<String, BsonDocument> optionsByCollection, List<String> problems, List<String> warnings) {
    if (mode == PreImageMode.OFF) {
      return;
    }
    try {
      int major = Integer.parseInt(version.split("\\.")[0]);
      if (major < MIN_PRE_IMAGE_MAJOR_VERSION) {
        problems.add("fullDocumentBeforeChange=" + mode.setting() + " needs MongoDB " + MIN_PRE_IMAGE_MAJOR_VERSION
            + ".0 or newer, the server is " + version);
        return;
      }
    } catch (RuntimeException e) {
      // an unreadable version is reported by versionProblem
    }
    List<String> without = new ArrayList<>();
    List<String> commands = new ArrayList<>();
    for (String name : collections) {
      BsonDocument options = optionsByCollection.get(name);
      if (options == null) {
        continue;
      }
      BsonDocument images = options.getDocument("changeStreamPreAndPostImages", new BsonDocument());
      if (!images.getBoolean("enabled", org.bson.BsonBoolean.FALSE).getValue()) {
        int dot = name.indexOf('.');
        without.add(name);
        commands.add("db.getSiblingDB(" + jsString(name.substring(0, dot)) + ").runCommand({collMod: "
            + jsString(name.substring(dot + 1)) + ", changeStreamPreAndPostImages: {enabled: true}})");
      }
    }
    if (without.isEmpty()) {
      return;
    }
    String which = "changeStreamPreAndPostImages is not enabled on " + String.join(", ", without)
        + "; enable it with " + String.join(" and ", commands);
    if (mode == PreImageMode.REQUIRED) {
      problems.add("fullDocumentBeforeChange=required: " + which
          + " (or use fullDocumentBeforeChange=whenAvailable)");
    } else {
      warnings.add("fullDocumentBeforeChange=whenAvailable: " + which
          + "; until then their events carry no pre-image (doc_before stays null)");
    }
  }

  /** A JavaScript string literal for the mongo shell. */
  private static String jsString(String value) {
    return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}
