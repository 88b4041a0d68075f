package io.mongocdc.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.decode.Namespace;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.privacy.FieldRedactor;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Whether a mirror's rows keep its field rules, whatever path wrote them (issue 47): with the hash
 * key known, every value at a path the rules in effect protect is classified as absent, hashed
 * once, hashed twice, or in clear. It reads every row of the destination schema's tables of the
 * collections given (state rows and tombstones: {@code doc}, {@code _raw_doc} and typed columns;
 * history rows: {@code doc}, {@code doc_before}, {@code updateDescription}) and the mirror's
 * catalog rows (quarantined events, their document and raw BSON; the mirror's own row), and
 * reports each finding with where it is.
 *
 * <p>The source's documents give what "hashed once" and "hashed twice" mean: the HMAC of every
 * value they hold at a path that may get a rule, and the HMAC of that HMAC. Any hex string in any
 * row equal to a hash of a hash is reported, wherever it is. Protected strings in clear are
 * found by their value too, in any column (a typed column, a raw document, an error message).
 */
public final class FieldPrivacyAudit {

  private static final Pattern HEX64 = Pattern.compile("(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int SHOWN_PER_KIND = 5;

  private final HashKey key;
  private final Set<String> once = new HashSet<>();
  private final Set<String> twice = new HashSet<>();
  /** Per collection and path that may get a rule, the source's values there. */
  private final Map<String, Map<String, List<BsonValue>>> values = new LinkedHashMap<>();
  private final Map<String, List<String>> findings = new LinkedHashMap<>();
  private final Map<String, Integer> counts = new LinkedHashMap<>();

  /**
   * @param candidatePaths per collection, every path a rule may be put on during the run
   * @param sourceDocuments per collection, every document the source held at any time
   */
  public FieldPrivacyAudit(HashKey key, Map<String, List<String>> candidatePaths,
      Map<String, ? extends Collection<? extends BsonDocument>> sourceDocuments) {
    this.key = key;
    candidatePaths.forEach((collection, paths) -> {
      Map<String, List<BsonValue>> byPath = values.computeIfAbsent(collection, c -> new LinkedHashMap<>());
      for (String path : paths) {
        List<BsonValue> at = byPath.computeIfAbsent(path, p -> new ArrayList<>());
        for (BsonDocument document : sourceDocuments.containsKey(collection) ? sourceDocuments.get(collection) : List.<BsonDocument>of()) {
          collect(document, FieldRules.segments(path), 0, at);
        }
        for (BsonValue value : at) {
          String hash = hash(value);
          once.add(hash);
          twice.add(hash(new BsonString(hash)));
        }
      }
    });
  }

  /** The HMAC the rules give {@code value}, as a row holds it. */
  public String hash(BsonValue value) {
    BsonDocument holder = new BsonDocument("_id", new BsonInt32(0)).append("v", value);
    RawBsonDocument hashed = FieldRedactor.of(new FieldRules(List.of(), List.of("v")), key)
        .document(new RawBsonDocument(holder, new BsonDocumentCodec()));
    return hashed.getString("v").getValue();
  }

  /** What was found, per kind, with at most a few places each; empty if nothing. */
  public String report() {
    StringBuilder out = new StringBuilder();
    findings.forEach((kind, places) -> out.append(counts.get(kind)).append(" ").append(kind).append(", e.g. ")
        .append(places).append("\n"));
    return out.toString();
  }

  public boolean clean() {
    return findings.isEmpty();
  }

  /**
   * Audits the destination tables (state and history) of {@code rules}' collections in {@code schema},
   * and every other table of the schema for hashes of hashes.
   */
  public void destination(Connection c, String schema, String database, FieldRuleSettings rules) throws SQLException {
    protecting(rules);
    Map<String, FieldRules> byTable = new LinkedHashMap<>();
    Map<String, String> collectionOf = new LinkedHashMap<>();
    for (String collection : values.keySet()) {
      String table = TableNaming.tableName(new Namespace(database, collection));
      for (String t : List.of(table, TableNaming.historyTableName(table))) {
        byTable.put(t, rules.of(collection));
        collectionOf.put(t, collection);
      }
    }
    List<String> tables = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(
        "select table_name from information_schema.tables where table_schema = ? order by table_name")) {
      st.setString(1, schema);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
    }
    for (String table : tables) {
      FieldRules tableRules = byTable.getOrDefault(table, FieldRules.none());
      // A table of another collection (one without candidate paths) is looked at for hashes of hashes only.
      String collection = collectionOf.getOrDefault(table, "");
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
          "select to_jsonb(t)::text from " + TableNaming.qualified(schema, table) + " t")) {
        while (rs.next()) {
          row(table, collection, tableRules, rs.getString(1));
        }
      }
    }
  }

  /** Audits the catalog's rows of {@code mirror}: its quarantined events, and the rest of its rows for hashes of hashes and clear values. */
  public void catalog(Connection c, String mirror, FieldRuleSettings rules) throws SQLException {
    protecting(rules);
    try (PreparedStatement st = c.prepareStatement("select id, source_namespace, document, raw_event"
        + " from mongo_cdc.quarantined_events where mirror_name = ?")) {
      st.setString(1, mirror);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          String where = "quarantined event " + rs.getLong(1);
          String namespace = rs.getString(2);
          String collection = namespace == null ? null : namespace.substring(namespace.indexOf('.') + 1);
          FieldRules r = collection == null ? FieldRules.none() : rules.of(collection);
          String document = rs.getString(3);
          if (document != null) {
            text(where + " document", collection, document);
            structural(where + " document", r, parse(document));
          }
          byte[] raw = rs.getBytes(4);
          if (raw != null) {
            RawBsonDocument event = new RawBsonDocument(raw);
            text(where + " raw_event", collection, event.toJson());
            for (String part : List.of("fullDocument", "fullDocumentBeforeChange")) {
              if (event.isDocument(part)) {
                structural(where + " raw_event." + part, r, parse(event.getDocument(part).toJson()));
              }
            }
          }
        }
      }
    }
    for (String table : List.of("mirrors", "batches", "batch_attempts", "snapshot_partitions")) {
      String column = table.equals("mirrors") ? "name" : "mirror_name";
      try (PreparedStatement st = c.prepareStatement("select to_jsonb(t)::text from mongo_cdc." + table + " t where "
          + column + " = ?")) {
        st.setString(1, mirror);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            text("catalog " + table, null, rs.getString(1));
          }
        }
      } catch (SQLException e) {
        if (!"42P01".equals(e.getSQLState()) && !"42703".equals(e.getSQLState())) {
          throw e;
        }
      }
    }
  }

  private void row(String table, String collection, FieldRules rules, String rowJson) {
    JsonNode row = parse(rowJson);
    String where = table + " _id " + row.path("_id").asText() + " at " + row.path("_position").asText()
        + (row.path("_deleted").asBoolean(false) ? " (tombstone)" : "");
    for (Iterator<Map.Entry<String, JsonNode>> it = row.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> column = it.next();
      JsonNode value = column.getValue();
      String name = column.getKey();
      String text = value.isTextual() ? value.asText() : value.toString();
      text(where + " " + name, collection, text);
      switch (name) {
        case "doc", "doc_before" -> structural(where + " " + name, rules, value);
        case "_raw_doc" -> {
          if (value.isTextual()) {
            structural(where + " _raw_doc", rules, parse(value.asText()));
          }
        }
        case "updateDescription" -> updateDescription(where + " updateDescription", rules, value);
        default -> { }
      }
    }
  }

  /**
   * Clear protected strings of {@code collection} (of any collection if null), and hashes of
   * hashes, anywhere in {@code text}.
   */
  private void text(String where, String collection, String text) {
    Matcher hex = HEX64.matcher(text);
    while (hex.find()) {
      if (twice.contains(hex.group())) {
        found("values hashed twice", where);
      }
    }
    for (Map.Entry<String, Map<String, List<BsonValue>>> c : values.entrySet()) {
      if (collection != null && !c.getKey().equals(collection)) {
        continue;
      }
      for (String clear : protectedStrings(c.getKey())) {
        if (text.equals(clear) || text.contains("\"" + clear + "\"")) {
          found("protected values in clear", where + ": \"" + clear + "\"");
        }
      }
    }
  }

  private final Map<String, Set<String>> protectedStrings = new LinkedHashMap<>();
  private FieldRuleSettings protectedBy = FieldRuleSettings.defaults();

  /** The rules whose values {@link #text} looks for in clear (the rules in effect at the end). */
  private void protecting(FieldRuleSettings rules) {
    if (!rules.equals(protectedBy)) {
      protectedBy = rules;
      protectedStrings.clear();
    }
  }

  private Set<String> protectedStrings(String collection) {
    return protectedStrings.computeIfAbsent(collection, c -> {
      Set<String> strings = new HashSet<>();
      for (String path : protectedBy.of(c).paths()) {
        List<BsonValue> at = new ArrayList<>();
        Map<String, List<BsonValue>> byPath = values.getOrDefault(c, Map.of());
        byPath.forEach((candidate, vs) -> {
          if (candidate.equals(path) || candidate.startsWith(path + ".")) {
            at.addAll(vs);
          }
        });
        for (BsonValue v : at) {
          strings(v, strings);
        }
      }
      return strings;
    });
  }

  private static void strings(BsonValue v, Set<String> out) {
    if (v.isString() && v.asString().getValue().length() >= 2) {
      out.add(v.asString().getValue());
    } else if (v.isDocument()) {
      v.asDocument().values().forEach(x -> strings(x, out));
    } else if (v.isArray()) {
      v.asArray().forEach(x -> strings(x, out));
    }
  }

  /** Each rule's path in a document: absent if excluded, hashed once if hashed. */
  private void structural(String where, FieldRules rules, JsonNode document) {
    if (document == null || !document.isObject()) {
      return;
    }
    for (String path : governing(rules)) {
      List<JsonNode> at = new ArrayList<>();
      walk(document, FieldRules.segments(path), 0, at);
      check(where + " " + path, rules.exclude().contains(path), at);
    }
  }

  /** updatedFields: a field at, above or inside a rule's path, as the rule leaves it. */
  private void updateDescription(String where, FieldRules rules, JsonNode description) {
    JsonNode updated = description == null ? null : description.get("updatedFields");
    if (updated == null || !updated.isObject()) {
      return;
    }
    for (String path : governing(rules)) {
      List<String> rule = FieldRules.segments(path);
      boolean excluded = rules.exclude().contains(path);
      for (Iterator<Map.Entry<String, JsonNode>> it = updated.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        List<String> name = FieldRules.segments(field.getKey()).stream().filter(s -> !s.matches("[0-9]+")).toList();
        int common = 0;
        while (common < name.size() && common < rule.size()
            && (rule.get(common).equals(FieldRules.ANY_FIELD) || rule.get(common).equals(name.get(common)))) {
          common++;
        }
        if (common == name.size() && common <= rule.size()) {
          List<JsonNode> at = new ArrayList<>();
          walk(field.getValue(), rule, common, at);
          check(where + " " + field.getKey() + " (" + path + ")", excluded, at);
        } else if (common == rule.size()) {
          found(excluded ? "excluded values kept" : "fields inside a hashed value kept",
              where + " " + field.getKey() + " (" + path + ")");
        }
      }
    }
  }

  private void check(String where, boolean excluded, List<JsonNode> at) {
    for (JsonNode value : at) {
      if (excluded) {
        found("excluded values kept", where + " = " + shorten(value));
      } else if (!value.isTextual() || !value.asText().matches("[0-9a-f]{64}")) {
        found("protected values in clear", where + " = " + shorten(value));
      } else if (twice.contains(value.asText())) {
        found("values hashed twice", where);
      } else if (!once.contains(value.asText())) {
        found("hashes of no value the source held", where + " = " + value.asText());
      }
    }
  }

  /** The rule paths no other rule's path encloses (the outer rule wins). */
  private static List<String> governing(FieldRules rules) {
    List<String> paths = rules.paths();
    return paths.stream().filter(p -> paths.stream().noneMatch(q -> !q.equals(p) && encloses(q, p))).toList();
  }

  private static boolean encloses(String outer, String inner) {
    List<String> o = FieldRules.segments(outer);
    List<String> i = FieldRules.segments(inner);
    if (o.size() >= i.size()) {
      return false;
    }
    for (int k = 0; k < o.size(); k++) {
      if (!o.get(k).equals(FieldRules.ANY_FIELD) && !o.get(k).equals(i.get(k))) {
        return false;
      }
    }
    return true;
  }

  private static void walk(JsonNode value, List<String> segments, int i, List<JsonNode> out) {
    if (value == null || value.isMissingNode()) {
      return;
    }
    if (i == segments.size()) {
      out.add(value);
      return;
    }
    if (value.isArray()) {
      value.forEach(element -> walk(element, segments, i, out));
      return;
    }
    if (!value.isObject()) {
      return;
    }
    if (segments.get(i).equals(FieldRules.ANY_FIELD)) {
      value.forEach(child -> walk(child, segments, i + 1, out));
    } else {
      walk(value.get(segments.get(i)), segments, i + 1, out);
    }
  }

  private static void collect(BsonValue value, List<String> segments, int i, List<BsonValue> out) {
    if (value == null) {
      return;
    }
    if (i == segments.size()) {
      out.add(value);
      return;
    }
    if (value.isArray()) {
      for (BsonValue element : (BsonArray) value) {
        collect(element, segments, i, out);
      }
      return;
    }
    if (!value.isDocument()) {
      return;
    }
    BsonDocument document = value.asDocument();
    if (segments.get(i).equals(FieldRules.ANY_FIELD)) {
      document.values().forEach(child -> collect(child, segments, i + 1, out));
    } else {
      collect(document.get(segments.get(i)), segments, i + 1, out);
    }
  }

  private void found(String kind, String where) {
    counts.merge(kind, 1, Integer::sum);
    List<String> places = findings.computeIfAbsent(kind, k -> new ArrayList<>());
    if (places.size() < SHOWN_PER_KIND) {
      places.add(where);
    }
  }

  private static String shorten(JsonNode value) {
    String text = value.toString();
    return text.length() > 80 ? text.substring(0, 80) + "..." : text;
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("not JSON: " + json, e);
    }
  }
}
