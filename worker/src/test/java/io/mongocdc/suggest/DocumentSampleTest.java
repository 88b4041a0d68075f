package io.mongocdc.suggest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.workflows.model.TypedColumn;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class DocumentSampleTest {

  private static ColumnSuggestions suggest(SampleLimits limits, BsonDocument... documents) {
    DocumentSample sample = new DocumentSample(limits);
    for (BsonDocument document : documents) {
      sample.add(document);
    }
    return sample.suggestions("orders", TypedColumn.RESERVED);
  }

  private static ColumnSuggestions suggest(BsonDocument... documents) {
    return suggest(SampleLimits.defaults(), documents);
  }

  private static Map<String, SuggestedColumn> byPath(ColumnSuggestions suggestions) {
    return suggestions.paths().stream().collect(Collectors.toMap(SuggestedColumn::path, Function.identity()));
  }

  private static BsonDocument doc(String key, BsonValue value) {
    return new BsonDocument("_id", new BsonInt32(1)).append(key, value);
  }

  private static String typeOf(BsonValue... values) {
    BsonDocument[] documents = new BsonDocument[values.length];
    for (int i = 0; i < values.length; i++) {
      documents[i] = doc("v", values[i]);
    }
    return byPath(suggest(documents)).get("v").type();
  }

  @Test
  void everyBsonTypeMapsToItsColumnType() {
    byte[] uuid = new byte[16];
    assertEquals("text", typeOf(new BsonString("a")));
    assertEquals("bigint", typeOf(new BsonInt32(1)));
    assertEquals("bigint", typeOf(new BsonInt64(1)));
    assertEquals("double precision", typeOf(new BsonDouble(1.5)));
    assertEquals("numeric", typeOf(new BsonDecimal128(new Decimal128(new BigDecimal("1.50")))));
    assertEquals("boolean", typeOf(BsonBoolean.TRUE));
    assertEquals("timestamptz", typeOf(new BsonDateTime(0)));
    assertEquals("text", typeOf(new BsonObjectId(new ObjectId())));
    assertEquals("uuid", typeOf(new BsonBinary(UUID.randomUUID())));
    assertEquals("uuid", typeOf(new BsonBinary(BsonBinarySubType.UUID_STANDARD, uuid)));
    assertEquals("jsonb", typeOf(new BsonBinary(BsonBinarySubType.UUID_LEGACY, uuid)), "legacy UUIDs have no byte order");
    assertEquals("jsonb", typeOf(new BsonBinary(new byte[] {1, 2})));
    assertEquals("text[]", typeOf(new BsonArray(List.of(new BsonString("a"), BsonNull.VALUE))));
    assertEquals("jsonb", typeOf(new BsonArray(List.of(new BsonString("a"), new BsonInt32(1)))));
    assertEquals("jsonb", typeOf(new BsonArray(List.of(new BsonDocument("a", new BsonInt32(1))))));
    assertEquals("jsonb", typeOf(new BsonArray(List.of(BsonNull.VALUE))));
    assertEquals("jsonb", typeOf(new BsonArray()), "only empty arrays: nothing says what they hold");
    assertEquals("jsonb", typeOf(new BsonTimestamp(1, 1)));
    assertEquals("jsonb", typeOf(new BsonRegularExpression("a")));
    assertEquals("jsonb", typeOf(new BsonJavaScript("1")));
    assertEquals("jsonb", typeOf(new BsonMinKey()));
    assertEquals("jsonb", typeOf(new BsonMaxKey()));
    assertNull(typeOf(BsonNull.VALUE), "only null: nothing to type");
  }

  @Test
  void mixedNumbersWidenAndOtherMixesStayJson() {
    assertEquals("bigint", typeOf(new BsonInt32(1), new BsonInt64(2)));
    assertEquals("double precision", typeOf(new BsonInt32(1), new BsonDouble(2.5)));
    assertEquals("double precision", typeOf(new BsonInt64(1), new BsonDouble(2.5), BsonNull.VALUE));
    assertEquals("numeric", typeOf(new BsonInt32(1), new BsonDecimal128(Decimal128.parse("2.5"))));
    assertEquals("numeric", typeOf(new BsonDouble(1.5), new BsonDecimal128(Decimal128.parse("2.5"))));
    assertEquals("text[]", typeOf(new BsonArray(), new BsonArray(List.of(new BsonString("a")))));
    assertEquals("jsonb", typeOf(new BsonString("1"), new BsonInt32(1)));
    assertEquals("jsonb", typeOf(new BsonObjectId(new ObjectId()), new BsonString("a")));
    assertEquals("jsonb", typeOf(new BsonDateTime(0), new BsonString("2025-01-01")));
    assertEquals("jsonb", typeOf(new BsonDocument("a", new BsonInt32(1)), new BsonString("a")));
    SuggestedColumn mixed = byPath(suggest(doc("v", new BsonString("1")), doc("v", new BsonInt32(1)))).get("v");
    assertTrue(mixed.note().contains("mixed"), mixed.note());
  }

  @Test
  void sharesCountPresenceAndKinds() {
    BsonDocument[] documents = new BsonDocument[50];
    for (int i = 0; i < 50; i++) {
      BsonDocument d = new BsonDocument("_id", new BsonInt32(i));
      if (i < 40) {
        d.append("status", i < 39 ? new BsonString("paid") : BsonNull.VALUE);
      }
      documents[i] = d;
    }
    ColumnSuggestions suggestions = suggest(documents);
    assertEquals(50, suggestions.documents());
    SuggestedColumn status = byPath(suggestions).get("status");
    assertEquals(40, status.present(), "null counts as present, a missing field does not");
    assertEquals(List.of(ValueKind.STRING, ValueKind.NULL), List.copyOf(status.kinds().keySet()), "most frequent first");
    assertEquals(39L, status.kinds().get(ValueKind.STRING));
    assertEquals(1L, status.kinds().get(ValueKind.NULL));
    assertEquals("text", status.type(), "nulls make a column nullable, not of another type");
    assertEquals("status", status.name());
  }

  @Test
  void nestedDocumentsBecomeDottedPathsUpToTheMaximumDepth() {
    BsonDocument order = new BsonDocument("_id", new BsonObjectId(new ObjectId()))
        .append("customer", new BsonDocument("name", new BsonString("Zoë"))
            .append("address", new BsonDocument("city", new BsonString("Zürich"))
                .append("geo", new BsonDocument("lat", new BsonDouble(47.4)))));
    Map<String, SuggestedColumn> paths = byPath(suggest(new SampleLimits(10, 3), order));
    assertEquals(List.of("customer", "customer.name", "customer.address", "customer.address.city",
        "customer.address.geo"), suggest(new SampleLimits(10, 3), order).paths().stream().map(SuggestedColumn::path).toList(),
        "in the order first seen, a document's fields after it; the top-level _id is the key column already");
    assertFalse(paths.get("customer").proposed(), "its fields are proposed instead");
    assertEquals("customer_name", paths.get("customer.name").name());
    assertEquals("customer_address_city", paths.get("customer.address.city").name());
    assertEquals("text", paths.get("customer.address.city").type());
    assertEquals("jsonb", paths.get("customer.address.geo").type(), "a document at the maximum depth is one column");
    assertTrue(paths.get("customer.address.geo").note().contains("maximum depth"));

    Map<String, SuggestedColumn> shallow = byPath(suggest(new SampleLimits(10, 1), order));
    assertEquals(Set.of("customer"), shallow.keySet());
    assertEquals("jsonb", shallow.get("customer").type());
  }

  @Test
  void arraysAreOneValueAndNotWalkedInto() {
    BsonDocument order = new BsonDocument("_id", new BsonInt32(1))
        .append("tags", new BsonArray(List.of(new BsonString("promo"), new BsonString("été"))))
        .append("items", new BsonArray(List.of(new BsonDocument("sku", new BsonString("A")))));
    Map<String, SuggestedColumn> paths = byPath(suggest(order));
    assertEquals(Set.of("tags", "items"), paths.keySet(), "no index paths such as items.0.sku");
    assertEquals("text[]", paths.get("tags").type());
    assertEquals(ValueKind.STRING_ARRAY, paths.get("tags").kinds().keySet().iterator().next());
    assertEquals("jsonb", paths.get("items").type());
  }

  @Test
  void namesAvoidTheTablesColumnsAndEachOther() {
    BsonDocument d = new BsonDocument("_id", new BsonInt32(1))
        .append("doc", new BsonString("a"))
        .append("_position", new BsonString("b"))
        .append("createdAt", new BsonDateTime(0))
        .append("created_at", new BsonDateTime(0))
        .append("customer", new BsonDocument("_id", new BsonObjectId(new ObjectId())))
        .append("customer_id", new BsonString("c"));
    Map<String, SuggestedColumn> paths = byPath(suggest(d));
    assertEquals("doc_2", paths.get("doc").name(), "doc is the table's document column");
    assertEquals("position", paths.get("_position").name(), "no leading _: the table's own columns have one");
    assertEquals("created_at", paths.get("createdAt").name());
    assertEquals("created_at_2", paths.get("created_at").name());
    assertEquals("customer_id", paths.get("customer._id").name(), "a nested _id is a field like any other");
    assertEquals("customer_id_2", paths.get("customer_id").name());
    assertEquals(paths.size() - 1, paths.values().stream().filter(SuggestedColumn::proposed)
        .map(SuggestedColumn::name).distinct().count(), "every proposed name once");
  }

  @Test
  void fieldsAPathCannotAddressAreLeftOutAndNoted() {
    BsonDocument d = new BsonDocument("_id", new BsonInt32(1))
        .append("a.b", new BsonInt32(1))
        .append("$weird", new BsonInt32(1))
        .append("2024", new BsonInt32(1))
        .append("", new BsonInt32(1))
        .append("ok", new BsonInt32(1));
    ColumnSuggestions suggestions = suggest(d);
    assertEquals(Set.of("ok"), byPath(suggestions).keySet());
    assertEquals(1, suggestions.notes().size());
    assertTrue(suggestions.notes().get(0).startsWith("4 values"), suggestions.notes().get(0));
  }

  @Test
  void pathsCountedAreBounded() {
    BsonDocument wide = new BsonDocument("_id", new BsonInt32(1));
    for (int i = 0; i < DocumentSample.MAX_PATHS + 20; i++) {
      wide.append("day" + i, new BsonInt32(i));
    }
    ColumnSuggestions suggestions = suggest(wide, wide);
    assertEquals(DocumentSample.MAX_PATHS, suggestions.paths().size());
    assertTrue(suggestions.notes().get(0).contains("40 values"), suggestions.notes().toString());
  }

  @Test
  void limitsAreBoundedWithAClearError() {
    assertEquals(1_000, SampleLimits.defaults().sampleSize());
    new SampleLimits(SampleLimits.MAX_SAMPLE_SIZE, SampleLimits.MAX_DEPTH);
    IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
        () -> new SampleLimits(SampleLimits.MAX_SAMPLE_SIZE + 1, 3));
    assertEquals("--sample-size must be from 1 to 10000 (a bounded $sample keeps the read cheap on the source),"
        + " got 10001", tooMany.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new SampleLimits(0, 3));
    IllegalArgumentException depth = assertThrows(IllegalArgumentException.class, () -> new SampleLimits(10, 0));
    assertEquals("--max-depth must be from 1 to 20, got 0", depth.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new SampleLimits(10, SampleLimits.MAX_DEPTH + 1));
  }
}
