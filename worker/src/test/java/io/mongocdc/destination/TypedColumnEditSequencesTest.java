package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.decode.Namespace;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.TypedColumn;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random sequences of typed-column edits (add, redefine, remove with or without the data, add
 * again, index) with changes to the documents before each, on mirrors of named collections and of
 * every collection. Edits are made and checked by the workflow's own model code
 * ({@link EditRequest}, {@code editProblems}, {@code apply}); after each one is aligned, every
 * row's typed columns and drift must equal what the stream writes for its current document, and
 * every indexed column must have a valid index.
 */
class TypedColumnEditSequencesTest {

  private static final List<String> COLLECTIONS = List.of("orders", "users");
  private static final List<String> NAMES = List.of("a", "b", "c");
  private static final List<String> PATHS = List.of("version", "age", "name", "score", "nested.city", "tags");
  private static final List<String> TYPES = List.of("bigint", "text", "numeric", "double precision", "text[]");
  private static final int STEPS = 8;
  private static final int DOCUMENTS = 24;

  private static TypedColumnTables tables;

  @BeforeAll
  static void database() {
    tables = new TypedColumnTables("typed_sequences");
  }

  /** Odd seeds: a mirror of named collections; even seeds: a mirror of every collection. */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4})
  void everyRowMatchesTheStreamAfterEveryEdit(long seed) throws Exception {
    Random random = new Random(seed);
    List<String> collections = seed % 2 == 1 ? COLLECTIONS : List.of();
    MirrorConfig mirror = TypedColumnTables.mirror("seq" + seed, collections, MirrorSettings.defaults());
    tables.destination().createTables(mirror);
    Map<Namespace, Map<String, BsonDocument>> current = new TreeMap<>((x, y) -> x.fullName().compareTo(y.fullName()));
    for (String collection : COLLECTIONS) {
      current.put(new Namespace("app", collection), new LinkedHashMap<>());
    }
    List<String> done = new ArrayList<>();
    for (int step = 1; step <= STEPS; step++) {
      change(random, mirror, current);
      EditRequest edit = edit(random, mirror);
      if (edit == null) {
        continue;
      }
      MirrorConfig after = mirror.withSettings(mirror.settings().apply(edit));
      Map<String, List<String>> drop = Boolean.TRUE.equals(edit.dropColumnData()) ? edit.removeColumns() : Map.of();
      tables.align(mirror, after, drop);
      tables.destination().createTypedColumnIndexes(after, () -> {});
      done.add(String.valueOf(edit));
      mirror = after;
      try {
        tables.assertAsStreamed(mirror, current, String.valueOf(step));
        assertIndexed(mirror);
      } catch (AssertionError e) {
        throw new AssertionError("seed " + seed + " after edits " + done + ": " + e.getMessage(), e);
      }
    }
  }

  /** Some documents change or appear, written by the stream under the mirror's columns as they are. */
  private static void change(Random random, MirrorConfig mirror, Map<Namespace, Map<String, BsonDocument>> current)
      throws Exception {
    for (Map.Entry<Namespace, Map<String, BsonDocument>> collection : current.entrySet()) {
      Map<String, BsonDocument> changed = new LinkedHashMap<>();
      for (int i = 0; i < DOCUMENTS; i++) {
        if (collection.getValue().containsKey("d" + i) && random.nextInt(3) != 0) {
          continue;
        }
        BsonDocument doc = document(random, "d" + i);
        collection.getValue().put("d" + i, doc);
        changed.put("d" + i, doc);
      }
      tables.stream(mirror, collection.getKey(), changed);
    }
  }

  /** Fields that are there or not, and of types each column type converts or drifts on. */
  private static BsonDocument document(Random random, String id) {
    BsonDocument doc = new BsonDocument("_id", new BsonString(id));
    if (random.nextInt(4) != 0) {
      doc.append("version", new BsonInt64(random.nextInt(1_000_000)));
    }
    if (random.nextInt(4) != 0) {
      doc.append("age", random.nextInt(5) == 0 ? new BsonString("old") : new BsonInt32(random.nextInt(100)));
    }
    doc.append("name", new BsonString("n" + random.nextInt(1000)));
    double[] scores = {1.5, 3.0, 1.0E19, 1.0E16, -2.5E10, 0.1};
    if (random.nextBoolean()) {
      doc.append("score", new BsonDouble(scores[random.nextInt(scores.length)]));
    }
    if (random.nextBoolean()) {
      doc.append("nested", new BsonDocument("city", new BsonString("c" + random.nextInt(10))));
    }
    if (random.nextBoolean()) {
      doc.append("tags", new BsonArray(List.of(new BsonString("t" + random.nextInt(3)), new BsonString("x"))));
    }
    return doc;
  }

  /** An edit the workflow would accept, as the CLI sends it; null when none was found. */
  private static EditRequest edit(Random random, MirrorConfig mirror) {
    for (int attempt = 0; attempt < 20; attempt++) {
      String collection = COLLECTIONS.get(random.nextInt(COLLECTIONS.size()));
      List<TypedColumn> columns = mirror.settings().columns().of(collection);
      Map<String, Object> json = new LinkedHashMap<>();
      int kind = random.nextInt(columns.isEmpty() ? 1 : 3);
      if (kind == 0) {
        String name = NAMES.get(random.nextInt(NAMES.size()));
        String type = columns.stream().filter(c -> c.name().equals(name)).map(TypedColumn::type).findFirst()
            .orElse(TYPES.get(random.nextInt(TYPES.size())));
        json.put("columns", Map.of(collection, List.of(Map.of("name", name, "type", type,
            "path", PATHS.get(random.nextInt(PATHS.size()))))));
      } else if (kind == 1) {
        json.put("removeColumns", Map.of(collection, List.of(columns.get(random.nextInt(columns.size())).name())));
        if (random.nextBoolean()) {
          json.put("dropColumnData", true);
        }
      } else {
        json.put("indexes", Map.of(collection, List.of(columns.get(random.nextInt(columns.size())).name())));
      }
      EditRequest edit = EditRequest.fromJson(json);
      if (mirror.settings().columns().editProblems(edit).isEmpty()
          && mirror.settings().apply(edit).problems().isEmpty()) {
        return edit;
      }
    }
    return null;
  }

  private static void assertIndexed(MirrorConfig mirror) throws Exception {
    for (Map.Entry<String, List<String>> indexed : mirror.settings().columns().indexes().entrySet()) {
      String table = TableNaming.tableName(new Namespace("app", indexed.getKey()));
      for (String column : indexed.getValue()) {
        assertEquals("1", tables.one("select count(*) from pg_index i join pg_class t on t.oid = i.indrelid"
            + " join pg_namespace n on n.oid = t.relnamespace join pg_attribute a on a.attrelid = t.oid"
            + " and a.attnum = i.indkey[0] where i.indisvalid and n.nspname = '" + mirror.destinationSchema()
            + "' and t.relname = '" + table + "' and a.attname = '" + column + "'"),
            "a valid index on " + table + "." + column);
      }
    }
  }
}
