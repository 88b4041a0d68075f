package io.mongocdc.devtools.generator;

import java.math.BigDecimal;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/**
 * Realistic documents for benchmarks and the load generator, deterministic for a given index:
 * the same in every process (their ObjectIds too, see {@link #objectId}).
 */
public final class SampleDocuments {

  // What an ObjectId holds between its time and its counter: the driver's ObjectId(date, counter)
  // puts this process's random value there, which would make documents differ between processes.
  private static final byte[] FIXED_RANDOM_VALUE = {0x6D, 0x63, 0x64, 0x63, 0x00};

  private SampleDocuments() {}

  /** An ObjectId of this time (whole seconds) and counter (its low 24 bits), the same in every process. */
  static ObjectId objectId(long epochMillis, int counter) {
    byte[] bytes = new byte[12];
    int seconds = (int) (epochMillis / 1000);
    bytes[0] = (byte) (seconds >> 24);
    bytes[1] = (byte) (seconds >> 16);
    bytes[2] = (byte) (seconds >> 8);
    bytes[3] = (byte) seconds;
    System.arraycopy(FIXED_RANDOM_VALUE, 0, bytes, 4, 5);
    bytes[9] = (byte) (counter >> 16);
    bytes[10] = (byte) (counter >> 8);
    bytes[11] = (byte) counter;
    return new ObjectId(bytes);
  }

  /**
   * About 2 KB: an order with a nested customer, an array of line items, ObjectIds, dates,
   * Decimal128 amounts and non-ASCII text.
   */
  public static BsonDocument medium(int i) {
    BsonArray items = new BsonArray();
    for (int line = 0; line < 9; line++) {
      items.add(new BsonDocument()
          .append("sku", new BsonString("SKU-" + (i * 7 + line) % 10_000))
          .append("title", new BsonString("Café crème n°" + line + " – édition spéciale 東京"))
          .append("quantity", new BsonInt32(1 + line % 3))
          .append("unitPrice", new BsonDecimal128(new Decimal128(new BigDecimal("19.99").add(BigDecimal.valueOf(line)))))
          .append("tags", new BsonArray(java.util.List.of(new BsonString("promo"), new BsonString("été")))));
    }
    return new BsonDocument()
        .append("_id", new BsonObjectId(objectId(1_700_000_000_000L + i * 1000L, i & 0xFFFFFF)))
        .append("orderNumber", new BsonInt64(1_000_000L + i))
        .append("status", new BsonString(i % 3 == 0 ? "shipped" : "pending"))
        .append("createdAt", new BsonDateTime(1_700_000_000_000L + i * 1000L))
        .append("customer", new BsonDocument()
            .append("id", new BsonObjectId(objectId(1_600_000_000_000L, i % 5000)))
            .append("name", new BsonString("Zoë Ångström-" + i))
            .append("email", new BsonString("customer" + i + "@example.com"))
            .append("address", new BsonDocument()
                .append("street", new BsonString(i + " Rue de la Paix"))
                .append("city", new BsonString("Zürich"))
                .append("zip", new BsonString("80" + (i % 100)))
                .append("geo", new BsonArray(java.util.List.of(new BsonDouble(47.3769), new BsonDouble(8.5417))))))
        .append("items", items)
        .append("total", new BsonDecimal128(new Decimal128(new BigDecimal("149.94"))))
        .append("paid", BsonBoolean.valueOf(i % 2 == 0))
        .append("note", i % 4 == 0 ? BsonNull.VALUE : new BsonString("Livraison après 18h, merci ☺"))
        .append("updatedAt", new BsonDateTime(1_700_000_500_000L + i * 1000L));
  }

  /** About 200 B, flat: a user profile. */
  public static BsonDocument small(int i) {
    return new BsonDocument()
        .append("_id", new BsonString("user-" + i))
        .append("name", new BsonString("Zoë " + i))
        .append("email", new BsonString("user" + i + "@example.com"))
        .append("age", new BsonInt32(18 + i % 60))
        .append("score", new BsonDouble(i * 0.25))
        .append("active", BsonBoolean.valueOf(i % 3 != 0))
        .append("joinedAt", new BsonDateTime(1_600_000_000_000L + i * 60_000L));
  }

  /** About 150 B, flat: a product without a description. */
  public static BsonDocument smallProduct(int i) {
    String[] prices = {"4.99", "19.90", "129.00"};
    return new BsonDocument()
        .append("_id", new BsonInt32(i))
        .append("title", new BsonString("Produit n°" + i))
        .append("sku", new BsonString("SKU-" + i % 10_000))
        .append("price", new BsonDecimal128(new Decimal128(new BigDecimal(prices[i % prices.length]))))
        .append("stock", new BsonInt64(i * 7L % 1_000))
        .append("active", BsonBoolean.valueOf(i % 5 != 0));
  }

  /** About 30 KB: a product with a long description and many variants. */
  public static BsonDocument large(int i) {
    BsonArray variants = new BsonArray();
    for (int v = 0; v < 120; v++) {
      variants.add(new BsonDocument()
          .append("sku", new BsonString("P" + i + "-V" + v))
          .append("colour", new BsonString(v % 2 == 0 ? "bleu été" : "赤"))
          .append("price", new BsonDecimal128(new Decimal128(BigDecimal.valueOf(1000 + v, 2))))
          .append("stock", new BsonInt64(v * 17L))
          .append("dimensions", new BsonArray(java.util.List.of(new BsonDouble(v * 1.5), new BsonDouble(2.25),
              new BsonDouble(0.5)))));
    }
    return new BsonDocument()
        .append("_id", new BsonInt32(i))
        .append("title", new BsonString("Produit n°" + i))
        .append("description", new BsonString("Lorem ipsum dolor sit amet, «déjà vu» – ".repeat(60)))
        .append("variants", variants)
        .append("updatedAt", new BsonDateTime(1_700_000_000_000L + i * 1000L));
  }
}
