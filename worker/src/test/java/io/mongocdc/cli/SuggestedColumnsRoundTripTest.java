package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.suggest.ColumnSuggestions;
import io.mongocdc.suggest.ColumnsOptionText;
import io.mongocdc.suggest.DocumentSample;
import io.mongocdc.suggest.SampleLimits;
import io.mongocdc.workflows.model.TypedColumn;
import io.mongocdc.workflows.model.TypedColumnSettings;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;

/** What suggest-columns proposes is what --columns reads back, and what the settings accept. */
class SuggestedColumnsRoundTripTest {

  @Test
  void theSuggestedOptionParsesIntoTheSuggestedColumnsAndIsAValidSetting() {
    DocumentSample sample = new DocumentSample(SampleLimits.defaults());
    for (int i = 0; i < 3; i++) {
      sample.add(new BsonDocument("_id", new BsonObjectId())
          .append("status", new BsonString("paid"))
          .append("orderNumber", new BsonInt64(i))
          .append("score", new BsonDouble(i + 0.5))
          .append("total", new BsonDecimal128(Decimal128.parse("12.30")))
          .append("paid", BsonBoolean.TRUE)
          .append("createdAt", new BsonDateTime(1_700_000_000_000L))
          .append("ref", new BsonBinary(UUID.randomUUID()))
          .append("tags", new BsonArray(List.of(new BsonString("a"))))
          .append("customer", new BsonDocument("id", new BsonObjectId()).append("zip", new BsonInt32(8001)))
          .append("doc", new BsonString("a field named like the table's own column")));
    }
    ColumnSuggestions suggestions = sample.suggestions("orders", TypedColumn.RESERVED);

    Map<String, List<TypedColumn>> parsed = ColumnsOption.columns(List.of(ColumnsOptionText.value(suggestions)), null);

    List<TypedColumn> expected = suggestions.proposed().stream()
        .map(c -> new TypedColumn(c.name(), c.type(), c.path())).toList();
    assertEquals(Map.of("orders", expected), parsed);
    Set<String> types = new HashSet<>(TypedColumn.TYPES);
    types.remove("jsonb");
    assertEquals(types, expected.stream().map(TypedColumn::type).collect(Collectors.toSet()),
        "every type but jsonb is proposed once: " + expected);
    assertEquals(List.of(), new TypedColumnSettings(parsed, null).problems());
  }
}
