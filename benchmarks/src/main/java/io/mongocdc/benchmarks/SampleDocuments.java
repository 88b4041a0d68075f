package io.mongocdc.benchmarks;

import java.math.BigDecimal;
import java.util.Date;
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

/** Realistic documents for benchmarks, deterministic for a given index. */
public final class SampleDocuments {

  private SampleDocuments() {}

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
        .append("_id", new BsonObjectId(new ObjectId(new Date(1_700_000_000_000L + i * 1000L), i & 0xFFFFFF)))
        .append("orderNumber", new BsonInt64(1_000_000L + i))
        .append("status", new BsonString(i % 3 == 0 ? "shipped" : "pending"))
        .append("createdAt", new BsonDateTime(1_700_000_000_000L + i * 1000L))
        .append("customer", new BsonDocument()
            .append("id", new BsonObjectId(new ObjectId(new Date(1_600_000_000_000L), i % 5000)))
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
}
