package io.mongocdc.devtools.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.decode.Namespace;
import io.mongocdc.snapshot.BsonIdOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.bson.BsonDecimal128;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMinKey;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** The walk of a generated collection's keys must be the server's {@code _id} order, checked against sorting them. */
class KeyOrderTest {

  private static final CollectionFormat USERS = new CollectionFormat(new Namespace("demo", "users"), 1);
  private static final CollectionFormat PRODUCTS = new CollectionFormat(new Namespace("demo", "products"), 2);

  private static List<Long> walked(CollectionFormat format, long limit) {
    List<Long> keys = new ArrayList<>();
    for (long key = KeyOrder.first(limit); key >= 0; key = KeyOrder.next(format, key, limit)) {
      keys.add(key);
    }
    return keys;
  }

  private static List<Long> sorted(CollectionFormat format, long limit) {
    Comparator<Long> byId = (a, b) -> BsonIdOrder.INSTANCE.compare(format.key(a.intValue()), format.key(b.intValue()));
    return LongStream.range(0, limit).boxed().sorted(byId).toList();
  }

  /** The brute force: the first key in {@code _id} order at or after the bound. */
  private static long firstAtOrAfter(List<Long> sorted, CollectionFormat format, BsonValue bound) {
    return sorted.stream().filter(k -> BsonIdOrder.INSTANCE.compare(format.key(k.intValue()), bound) >= 0)
        .findFirst().orElse(-1L);
  }

  @Test
  void theWalkIsTheIdOrderForTextAndNumberKeys() {
    for (long limit : new long[] {0, 1, 2, 9, 10, 11, 99, 100, 101, 1_234, 20_000}) {
      assertEquals(sorted(USERS, limit), walked(USERS, limit), "text keys below " + limit);
      assertEquals(sorted(PRODUCTS, limit), walked(PRODUCTS, limit), "number keys below " + limit);
    }
  }

  @Test
  void seekFindsTheFirstKeyAtOrAfterAnyBound() {
    Random random = new Random(3);
    for (long limit : new long[] {1, 10, 57, 1_234}) {
      List<Long> text = sorted(USERS, limit);
      List<BsonValue> bounds = new ArrayList<>(List.of(new BsonString(""), new BsonString("user"),
          new BsonString("user-"), new BsonString("user-/"), new BsonString("user-:"), new BsonString("user-0"),
          new BsonString("user-00"), new BsonString("user-1"), new BsonString("user-12a"), new BsonString("usera"),
          new BsonString("zz"), new BsonString("a"), new BsonInt32(5), new BsonMinKey(), new BsonObjectId(new ObjectId())));
      for (int i = 0; i < 300; i++) {
        bounds.add(new BsonString("user-" + Long.toString(random.nextLong(limit * 20 + 1))
            + (random.nextInt(4) == 0 ? "~" : "")));
      }
      for (BsonValue bound : bounds) {
        assertEquals(firstAtOrAfter(text, USERS, bound), KeyOrder.seek(USERS, bound, limit), bound + " below " + limit);
      }
      List<Long> numbers = sorted(PRODUCTS, limit);
      List<BsonValue> numberBounds = new ArrayList<>(List.of(new BsonInt32(-3), new BsonInt64(0), new BsonDouble(2.5),
          new BsonDouble(-0.5), new BsonDouble(Double.POSITIVE_INFINITY), new BsonDouble(Double.NEGATIVE_INFINITY),
          new BsonDecimal128(Decimal128.parse("7.000000000000000000001")), new BsonInt64(limit),
          new BsonString("a"), new BsonMinKey()));
      for (int i = 0; i < 100; i++) {
        numberBounds.add(new BsonDouble(random.nextDouble() * limit * 1.2));
      }
      for (BsonValue bound : numberBounds) {
        assertEquals(firstAtOrAfter(numbers, PRODUCTS, bound), KeyOrder.seek(PRODUCTS, bound, limit),
            bound + " below " + limit);
      }
    }
  }
}
