package io.mongocdc.snapshot;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/** Seeded generators of {@code _id} values shaped like real collections' keys. */
final class RandomIds {

  private RandomIds() {}

  /** ObjectIds from a bursty insert history: most ids in a few short time windows. */
  static BsonValue objectId(Random random) {
    int second = random.nextInt(10) < 8
        ? 1_700_000_000 + random.nextInt(5) * 1_000_000 + random.nextInt(3_600)
        : 1_500_000_000 + random.nextInt(200_000_000);
    ByteBuffer bytes = ByteBuffer.allocate(12).putInt(second).putInt(random.nextInt()).putInt(random.nextInt());
    return new BsonObjectId(new ObjectId(bytes.array()));
  }

  /** int32, int64 (also beyond 2^53), double and decimal in overlapping ranges. */
  static BsonValue number(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> new BsonInt32(random.nextInt(2_000) - 1_000);
      case 1 -> new BsonInt64(random.nextLong());
      case 2 -> new BsonInt64((1L << 53) + random.nextInt(1_000));
      case 3 -> new BsonDouble(random.nextGaussian() * 1_000);
      case 4 -> new BsonDouble(random.nextInt(2_000) - 1_000);
      default -> new BsonDecimal128(new Decimal128(new java.math.BigDecimal(random.nextGaussian() * 1e6)
          .setScale(random.nextInt(6), java.math.RoundingMode.HALF_EVEN)));
    };
  }

  /** Natural string keys: mixed case, digits, accents and characters outside the BMP. */
  static BsonValue string(Random random) {
    String alphabet = "abcXYZ019_-éß中\uD83D\uDE00";
    StringBuilder text = new StringBuilder();
    int length = 1 + random.nextInt(12);
    for (int i = 0; i < length; i++) {
      int at = random.nextInt(alphabet.length() - 1);
      if (Character.isHighSurrogate(alphabet.charAt(at))) {
        text.append(alphabet, at, at + 2);
      } else if (Character.isLowSurrogate(alphabet.charAt(at))) {
        text.append(alphabet, at - 1, at + 1);
      } else {
        text.append(alphabet.charAt(at));
      }
    }
    return random.nextInt(50) == 0 ? new BsonSymbol(text.toString()) : new BsonString(text.toString());
  }

  /** Any type an _id may have, weighted toward the common ones. */
  static BsonValue mixed(Random random) {
    return switch (random.nextInt(14)) {
      case 0, 1, 2 -> objectId(random);
      case 3, 4, 5 -> number(random);
      case 6, 7 -> string(random);
      case 8 -> new BsonBinary((byte) random.nextInt(6), bytes(random, random.nextInt(20)));
      case 9 -> new BsonDateTime(random.nextLong() % 4_000_000_000_000L);
      case 10 -> new BsonTimestamp(random.nextLong());
      case 11 -> BsonBoolean.valueOf(random.nextBoolean());
      case 12 -> new BsonDocument("k", new BsonInt32(random.nextInt(100)));
      default -> switch (random.nextInt(3)) {
        case 0 -> new BsonMinKey();
        case 1 -> new BsonMaxKey();
        default -> BsonNull.VALUE;
      };
    };
  }

  static byte[] bytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** {@code count} distinct ids (by the server's equality), as a collection's _ids would be. */
  static List<BsonValue> distinct(Random random, int count, Function<Random, BsonValue> generator) {
    java.util.TreeSet<BsonValue> ids = new java.util.TreeSet<>(BsonIdOrder.INSTANCE);
    int attempts = 0;
    while (ids.size() < count && attempts++ < count * 20) {
      ids.add(generator.apply(random));
    }
    List<BsonValue> shuffled = new ArrayList<>(ids);
    java.util.Collections.shuffle(shuffled, random);
    return shuffled;
  }
}
