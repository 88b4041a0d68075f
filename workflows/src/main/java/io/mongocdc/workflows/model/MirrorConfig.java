package io.mongocdc.workflows.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a mirror replicates and where. It names its peers (a MongoDB deployment, a PostgreSQL
 * database) and never carries their credentials: the worker resolves a peer name to a connection
 * from its own configuration, so nothing secret enters workflow history.
 *
 * @param name the mirror's name; its workflow id is {@code mirror-<name>}
 * @param sourcePeer the MongoDB peer's name
 * @param destinationPeer the PostgreSQL peer's name
 * @param sourceDatabase the MongoDB database watched
 * @param collections the collections replicated; empty means every collection of the database
 * @param destinationSchema the PostgreSQL schema the tables are created in
 * @param settings the settings in effect
 */
public record MirrorConfig(
    String name,
    String sourcePeer,
    String destinationPeer,
    String sourceDatabase,
    List<String> collections,
    String destinationSchema,
    MirrorSettings settings) {

  private static final Pattern MIRROR_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,47}");
  // A peer name is a short identifier; anything like a connection string is refused, so a
  // password pasted in the wrong place is rejected instead of stored in history.
  private static final Pattern PEER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  public MirrorConfig {
    collections = collections == null ? List.of() : List.copyOf(collections);
  }

  /** Every reason this configuration cannot work; empty when it can. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (name == null || !MIRROR_NAME.matcher(name).matches()) {
      problems.add("name must be 1-48 characters of a-z, 0-9, '_' or '-', starting with a letter or digit");
    }
    checkPeer("sourcePeer", sourcePeer, problems);
    checkPeer("destinationPeer", destinationPeer, problems);
    if (sourceDatabase == null || sourceDatabase.isBlank()) {
      problems.add("sourceDatabase is required");
    }
    for (String collection : collections) {
      if (collection == null || collection.isBlank()) {
        problems.add("collections must not contain blank names");
      }
    }
    if (destinationSchema == null || !SCHEMA.matcher(destinationSchema).matches()) {
      problems.add("destinationSchema must be a lower-case PostgreSQL identifier");
    }
    if (settings == null) {
      problems.add("settings are required");
    } else {
      settings.problems().forEach(p -> problems.add("settings." + p));
      if (!collections.isEmpty()) {
        requireCollections("snapshotFilters", settings.snapshot().filters().keySet(), problems);
        requireCollections("history", settings.history().collections(), problems);
        requireCollections("columns", settings.columns().columns().keySet(), problems);
        requireCollections("fieldRules", settings.fieldRules().collections().keySet(), problems);
      }
    }
    return problems;
  }

  /** A problem for each collection a per-collection setting names that the mirror does not replicate. */
  private void requireCollections(String setting, Collection<String> named, List<String> problems) {
    for (String collection : named) {
      if (!collections.contains(collection)) {
        problems.add("settings." + setting + ": '" + collection + "' is not one of the mirror's collections "
            + collections);
      }
    }
  }

  /**
   * @return this configuration
   * @throws InvalidMirrorException naming every problem
   */
  public MirrorConfig requireValid() {
    List<String> problems = problems();
    if (!problems.isEmpty()) {
      throw new InvalidMirrorException(name, problems);
    }
    return this;
  }

  public MirrorConfig withSettings(MirrorSettings newSettings) {
    return new MirrorConfig(
        name, sourcePeer, destinationPeer, sourceDatabase, collections, destinationSchema, newSettings);
  }

  public MirrorConfig withCollections(List<String> newCollections) {
    return new MirrorConfig(
        name, sourcePeer, destinationPeer, sourceDatabase, newCollections, destinationSchema, settings);
  }

  private static void checkPeer(String field, String value, List<String> problems) {
    if (value == null || !PEER_NAME.matcher(value).matches()) {
      problems.add(field + " must be a peer name (letters, digits, '_', '.', '-'), not a connection string");
    }
  }
}
