package io.mongocdc.snapshot;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonParseException;
import org.bson.json.JsonWriterSettings;

/**
 * One partition of a collection's {@code _id} space. Either a range within one type bracket
 * ({@code bracket} set, {@code lower} inclusive and {@code upper} exclusive, null meaning the
 * bracket's own end), or every {@code _id} whose bracket is not in {@code otherThan}
 * ({@code bracket} null; {@link #whole()} when {@code otherThan} is empty).
 *
 * <p>{@link #contains} and {@link #toFilter} must select the same {@code _id}s: the planner's
 * proof that partitions are disjoint and complete is made with {@code contains}, the server
 * reads with {@code toFilter}.
 */
public record IdRange(IdTypeBracket bracket, BsonValue lower, BsonValue upper, List<IdTypeBracket> otherThan) {

  private static final JsonWriterSettings CANONICAL = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();
  private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();
  private static final int DESCRIBED_VALUE_LENGTH = 40;

  public IdRange {
    List<IdTypeBracket> excluded = otherThan == null ? List.of() : otherThan;
    // Enum order and no repeats, so equal ranges are equal records and store as equal text.
    otherThan = Arrays.stream(IdTypeBracket.values()).filter(excluded::contains).toList();
    if (bracket == null) {
      if (lower != null || upper != null) {
        throw new IllegalArgumentException("a range without a bracket cannot have bounds");
      }
    } else {
      if (!otherThan.isEmpty()) {
        throw new IllegalArgumentException("a range within " + bracket.label() + " cannot also exclude brackets");
      }
      lower = checkedBound(bracket, lower);
      upper = checkedBound(bracket, upper);
      if (lower != null && upper != null && BsonIdOrder.INSTANCE.compare(lower, upper) >= 0) {
        throw new IllegalArgumentException("empty range: lower " + shortText(lower) + " is not below upper " + shortText(upper));
      }
    }
  }

  private static BsonValue checkedBound(IdTypeBracket bracket, BsonValue bound) {
    if (bound == null) {
      return null;
    }
    if (!bracket.splittable()) {
      throw new IllegalArgumentException("the " + bracket.label() + " bracket is never split, so it takes no bounds");
    }
    if (IdTypeBracket.of(bound) != bracket) {
      throw new IllegalArgumentException("bound " + shortText(bound) + " is not in the " + bracket.label() + " bracket");
    }
    // The server's $gte/$lt never match NaN, nor does $gte: NaN match anything but NaN.
    if (BsonIdOrder.isNaN(bound)) {
      throw new IllegalArgumentException("NaN cannot bound a range");
    }
    // A symbol bound compares like a string; a string keeps the stored text free of deprecated types.
    return bound.isSymbol() ? new BsonString(bound.asSymbol().getSymbol()) : bound;
  }

  /** Every {@code _id}. */
  public static IdRange whole() {
    return new IdRange(null, null, null, List.of());
  }

  /** The {@code _id}s of {@code bracket} in [lowerInclusive, upperExclusive); a null bound is open. */
  public static IdRange of(IdTypeBracket bracket, BsonValue lowerInclusive, BsonValue upperExclusive) {
    if (bracket == null) {
      throw new IllegalArgumentException("bracket is required");
    }
    return new IdRange(bracket, lowerInclusive, upperExclusive, List.of());
  }

  /** Every {@code _id} whose bracket is not in {@code planned}. */
  public static IdRange restOf(Collection<IdTypeBracket> planned) {
    return new IdRange(null, null, null, List.copyOf(planned));
  }

  public boolean isWhole() {
    return bracket == null && otherThan.isEmpty();
  }

  public boolean contains(BsonValue id) {
    IdTypeBracket idBracket = IdTypeBracket.of(id);
    if (bracket == null) {
      return !otherThan.contains(idBracket);
    }
    return idBracket == bracket
        && (lower == null || BsonIdOrder.INSTANCE.compare(id, lower) >= 0)
        && (upper == null || BsonIdOrder.INSTANCE.compare(id, upper) < 0);
  }

  /**
   * The query on {@code _id} selecting exactly this range. The server compares only within a
   * type bracket, so {@code $type} names the bracket and the bounds compare inside it. Strings
   * compare by bytes only under the simple collation, which the reader must pass explicitly.
   *
   * <p>NaN sorts below every number but the server's {@code $lt} never matches it; the first
   * numeric range therefore uses {@code $not: {$gte: upper}}, which does (and still has index
   * bounds: [NaN, upper)).
   */
  public BsonDocument toFilter() {
    if (bracket == null) {
      return otherThan.isEmpty() ? new BsonDocument()
          : new BsonDocument("_id", new BsonDocument("$not", new BsonDocument("$type", aliases(otherThan))));
    }
    BsonDocument condition = new BsonDocument("$type", aliases(List.of(bracket)));
    if (lower != null) {
      condition.append("$gte", lower);
    }
    if (upper != null) {
      if (bracket == IdTypeBracket.NUMBER && lower == null) {
        condition.append("$not", new BsonDocument("$gte", upper));
      } else {
        condition.append("$lt", upper);
      }
    }
    return new BsonDocument("_id", condition);
  }

  private static BsonArray aliases(List<IdTypeBracket> brackets) {
    BsonArray aliases = new BsonArray();
    for (IdTypeBracket b : brackets) {
      b.typeAliases().forEach(alias -> aliases.add(new BsonString(alias)));
    }
    return aliases;
  }

  /** Lossless text for storage: canonical Extended JSON, so bound types survive (1 vs 1L vs 1.0). */
  public String toJson() {
    BsonDocument json = new BsonDocument();
    if (bracket == null) {
      json.append("kind", new BsonString(otherThan.isEmpty() ? "whole" : "rest"));
      if (!otherThan.isEmpty()) {
        BsonArray labels = new BsonArray();
        otherThan.forEach(b -> labels.add(new BsonString(b.label())));
        json.append("otherThan", labels);
      }
    } else {
      json.append("kind", new BsonString("bracket")).append("bracket", new BsonString(bracket.label()));
      if (lower != null) {
        json.append("lower", lower);
      }
      if (upper != null) {
        json.append("upper", upper);
      }
    }
    return json.toJson(CANONICAL);
  }

  public static IdRange fromJson(String json) {
    BsonDocument doc;
    try {
      doc = BsonDocument.parse(json);
    } catch (JsonParseException | BsonInvalidOperationException e) {
      throw new IllegalArgumentException("not a stored id range: " + e.getMessage(), e);
    }
    String kind = doc.containsKey("kind") && doc.get("kind").isString() ? doc.getString("kind").getValue() : "";
    return switch (kind) {
      case "whole" -> whole();
      case "rest" -> {
        List<IdTypeBracket> brackets = new ArrayList<>();
        for (BsonValue label : doc.getArray("otherThan", new BsonArray())) {
          brackets.add(bracketOf(label));
        }
        yield restOf(brackets);
      }
      case "bracket" -> of(bracketOf(doc.get("bracket")), doc.get("lower"), doc.get("upper"));
      default -> throw new IllegalArgumentException("not a stored id range (kind '" + kind + "'): " + json);
    };
  }

  private static IdTypeBracket bracketOf(BsonValue label) {
    if (label == null || !label.isString()) {
      throw new IllegalArgumentException("a stored id range names its bracket as a string");
    }
    return IdTypeBracket.byLabel(label.asString().getValue())
        .orElseThrow(() -> new IllegalArgumentException("unknown type bracket '" + label.asString().getValue() + "'"));
  }

  /** Short text for logs, e.g. {@code objectId [65430000..., 65440000...)}. */
  public String describe() {
    if (bracket == null) {
      return otherThan.isEmpty() ? "all _ids"
          : "_ids not of type " + otherThan.stream().map(IdTypeBracket::label).collect(Collectors.joining(", "));
    }
    if (lower == null && upper == null) {
      return bracket.label() + " (all)";
    }
    return bracket.label() + " [" + (lower == null ? ".." : shortText(lower)) + ", "
        + (upper == null ? ".." : shortText(upper)) + ")";
  }

  private static String shortText(BsonValue value) {
    String text = switch (value.getBsonType()) {
      case OBJECT_ID -> value.asObjectId().getValue().toHexString();
      case INT32 -> Integer.toString(value.asInt32().getValue());
      case INT64 -> Long.toString(value.asInt64().getValue());
      case DOUBLE -> Double.toString(value.asDouble().getValue());
      case DECIMAL128 -> value.asDecimal128().getValue().toString();
      case STRING -> '"' + value.asString().getValue() + '"';
      case DATE_TIME -> Instant.ofEpochMilli(value.asDateTime().getValue()).toString();
      default -> new BsonDocument("v", value).toJson(RELAXED).replaceFirst("^\\{\"v\": (.*)}$", "$1");
    };
    return text.length() <= DESCRIBED_VALUE_LENGTH ? text : text.substring(0, DESCRIBED_VALUE_LENGTH - 3) + "...";
  }
}
