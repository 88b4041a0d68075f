package io.mongocdc.devtools.generator;

import static io.mongocdc.devtools.generator.BsonBytes.index;
import static io.mongocdc.devtools.generator.BsonBytes.name;
import static io.mongocdc.devtools.generator.BsonBytes.utf8;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bson.types.Decimal128;

/**
 * The documents of {@link SampleDocuments}, written straight as BSON with a given {@code _id}:
 * the same bytes the codec makes of {@code SampleDocuments.medium(i)} (and {@code small},
 * {@code large}) with their {@code _id} replaced. What does not depend on the document number
 * is encoded once.
 */
final class SampleDocumentBytes {

  private static final int OBJECT_ID = 0x07;
  private static final int DECIMAL128 = 0x13;

  private static final byte[] ID = name("_id");
  private static final byte[] ORDER_NUMBER = name("orderNumber");
  private static final byte[] STATUS = name("status");
  private static final byte[] CREATED_AT = name("createdAt");
  private static final byte[] CUSTOMER = name("customer");
  private static final byte[] CUSTOMER_ID_FIELD = name("id");
  private static final byte[] NAME = name("name");
  private static final byte[] EMAIL = name("email");
  private static final byte[] ADDRESS = name("address");
  private static final byte[] STREET = name("street");
  private static final byte[] CITY = name("city");
  private static final byte[] ZIP = name("zip");
  private static final byte[] GEO = name("geo");
  private static final byte[] ITEMS = name("items");
  private static final byte[] SKU = name("sku");
  private static final byte[] TITLE = name("title");
  private static final byte[] QUANTITY = name("quantity");
  private static final byte[] UNIT_PRICE = name("unitPrice");
  private static final byte[] TAGS = name("tags");
  private static final byte[] TOTAL = name("total");
  private static final byte[] PAID = name("paid");
  private static final byte[] NOTE = name("note");
  private static final byte[] UPDATED_AT = name("updatedAt");
  private static final byte[] AGE = name("age");
  private static final byte[] SCORE = name("score");
  private static final byte[] ACTIVE = name("active");
  private static final byte[] JOINED_AT = name("joinedAt");
  private static final byte[] DESCRIPTION = name("description");
  private static final byte[] VARIANTS = name("variants");
  private static final byte[] COLOUR = name("colour");
  private static final byte[] PRICE = name("price");
  private static final byte[] STOCK = name("stock");
  private static final byte[] DIMENSIONS = name("dimensions");

  private static final byte[] EMPTY = new byte[0];
  private static final byte[] SHIPPED = utf8("shipped");
  private static final byte[] PENDING = utf8("pending");
  private static final byte[] CUSTOMER_NAME = utf8("Zoë Ångström-");
  private static final byte[] CUSTOMER_EMAIL = utf8("customer");
  private static final byte[] AT_EXAMPLE = utf8("@example.com");
  private static final byte[] RUE = utf8(" Rue de la Paix");
  private static final byte[] ZURICH = utf8("Zürich");
  private static final byte[] ZIP_PREFIX = utf8("80");
  private static final byte[] SKU_PREFIX = utf8("SKU-");
  private static final byte[] PROMO = utf8("promo");
  private static final byte[] ETE = utf8("été");
  private static final byte[] NOTE_TEXT = utf8("Livraison après 18h, merci ☺");
  private static final byte[] TOTAL_AMOUNT = decimal128(new BigDecimal("149.94"));
  // The fields of a line item or a variant after its sku do not depend on the document number.
  private static final byte[][] ITEM_TAILS = new byte[9][];
  // Only the counter (the last three bytes, big-endian) varies; the rest is the same in every process.
  private static final byte[] CUSTOMER_ID = SampleDocuments.objectId(1_600_000_000_000L, 0).toByteArray();

  private static final byte[] USER_NAME = utf8("Zoë ");
  private static final byte[] USER_EMAIL = utf8("user");

  private static final byte[] PRODUCT_TITLE = utf8("Produit n°");
  private static final byte[][] SMALL_PRODUCT_PRICES = {decimal128(new BigDecimal("4.99")),
      decimal128(new BigDecimal("19.90")), decimal128(new BigDecimal("129.00"))};
  private static final byte[] PRODUCT_DESCRIPTION = utf8("Lorem ipsum dolor sit amet, «déjà vu» – ".repeat(60));
  private static final byte[] VARIANT_PREFIX = utf8("P");
  private static final byte[] BLEU = utf8("bleu été");
  private static final byte[] ROUGE = utf8("赤");
  private static final byte[][] VARIANT_SUFFIXES = new byte[120][];
  private static final byte[][] VARIANT_TAILS = new byte[120][];

  static {
    for (int line = 0; line < ITEM_TAILS.length; line++) {
      BsonBytes tail = new BsonBytes();
      tail.string(TITLE, utf8("Café crème n°" + line + " – édition spéciale 東京"));
      tail.int32(QUANTITY, 1 + line % 3);
      tail.fixed(DECIMAL128, UNIT_PRICE, decimal128(new BigDecimal("19.99").add(BigDecimal.valueOf(line))));
      int tags = tail.startArray(TAGS);
      tail.string(index(0), PROMO);
      tail.string(index(1), ETE);
      tail.endDocument(tags);
      ITEM_TAILS[line] = tail.toByteArray();
    }
    for (int v = 0; v < VARIANT_TAILS.length; v++) {
      VARIANT_SUFFIXES[v] = utf8("-V" + v);
      BsonBytes tail = new BsonBytes();
      tail.string(COLOUR, v % 2 == 0 ? BLEU : ROUGE);
      tail.fixed(DECIMAL128, PRICE, decimal128(BigDecimal.valueOf(1000 + v, 2)));
      tail.int64(STOCK, v * 17L);
      int dimensions = tail.startArray(DIMENSIONS);
      tail.doubleValue(index(0), v * 1.5);
      tail.doubleValue(index(1), 2.25);
      tail.doubleValue(index(2), 0.5);
      tail.endDocument(dimensions);
      VARIANT_TAILS[v] = tail.toByteArray();
    }
  }

  private SampleDocumentBytes() {}

  /** Writes the ~2 KB order {@code medium(i)} with this key; returns where it starts. */
  static int medium(BsonBytes out, CollectionFormat key, int id, int i) {
    int start = out.startDocument();
    key.writeKey(out, ID, id);
    out.int64(ORDER_NUMBER, 1_000_000L + i);
    out.string(STATUS, i % 3 == 0 ? SHIPPED : PENDING);
    out.dateTime(CREATED_AT, 1_700_000_000_000L + i * 1000L);
    int customer = out.startDocument(CUSTOMER);
    out.header(OBJECT_ID, CUSTOMER_ID_FIELD);
    out.raw(CUSTOMER_ID, 0, 9);
    int counter = i % 5000;
    out.byteValue(counter >> 16);
    out.byteValue(counter >> 8);
    out.byteValue(counter);
    out.string(NAME, CUSTOMER_NAME, i, EMPTY);
    out.string(EMAIL, CUSTOMER_EMAIL, i, AT_EXAMPLE);
    int address = out.startDocument(ADDRESS);
    out.string(STREET, EMPTY, i, RUE);
    out.string(CITY, ZURICH);
    out.string(ZIP, ZIP_PREFIX, i % 100, EMPTY);
    int geo = out.startArray(GEO);
    out.doubleValue(index(0), 47.3769);
    out.doubleValue(index(1), 8.5417);
    out.endDocument(geo);
    out.endDocument(address);
    out.endDocument(customer);
    int items = out.startArray(ITEMS);
    for (int line = 0; line < 9; line++) {
      int item = out.startDocument(index(line));
      out.string(SKU, SKU_PREFIX, (i * 7 + line) % 10_000, EMPTY);
      out.raw(ITEM_TAILS[line], 0, ITEM_TAILS[line].length);
      out.endDocument(item);
    }
    out.endDocument(items);
    out.fixed(DECIMAL128, TOTAL, TOTAL_AMOUNT);
    out.bool(PAID, i % 2 == 0);
    if (i % 4 == 0) {
      out.nullValue(NOTE);
    } else {
      out.string(NOTE, NOTE_TEXT);
    }
    out.dateTime(UPDATED_AT, 1_700_000_500_000L + i * 1000L);
    out.endDocument(start);
    return start;
  }

  /** Writes the ~200 B user {@code small(i)} with this key; returns where it starts. */
  static int small(BsonBytes out, CollectionFormat key, int id, int i) {
    int start = out.startDocument();
    key.writeKey(out, ID, id);
    out.string(NAME, USER_NAME, i, EMPTY);
    out.string(EMAIL, USER_EMAIL, i, AT_EXAMPLE);
    out.int32(AGE, 18 + i % 60);
    out.doubleValue(SCORE, i * 0.25);
    out.bool(ACTIVE, i % 3 != 0);
    out.dateTime(JOINED_AT, 1_600_000_000_000L + i * 60_000L);
    out.endDocument(start);
    return start;
  }

  /**
   * Writes a ~150 B product with this key: a title, a SKU, a Decimal128 price, a stock count and a
   * flag; returns where it starts. No personal field: a product is not a user.
   */
  static int smallProduct(BsonBytes out, CollectionFormat key, int id, int i) {
    int start = out.startDocument();
    key.writeKey(out, ID, id);
    out.string(TITLE, PRODUCT_TITLE, i, EMPTY);
    out.string(SKU, SKU_PREFIX, i % 10_000, EMPTY);
    out.fixed(DECIMAL128, PRICE, SMALL_PRODUCT_PRICES[i % SMALL_PRODUCT_PRICES.length]);
    out.int64(STOCK, i * 7L % 1_000);
    out.bool(ACTIVE, i % 5 != 0);
    out.endDocument(start);
    return start;
  }

  /** Writes the ~30 KB product {@code large(i)} with this key; returns where it starts. */
  static int large(BsonBytes out, CollectionFormat key, int id, int i) {
    int start = out.startDocument();
    key.writeKey(out, ID, id);
    out.string(TITLE, PRODUCT_TITLE, i, EMPTY);
    out.string(DESCRIPTION, PRODUCT_DESCRIPTION);
    int variants = out.startArray(VARIANTS);
    for (int v = 0; v < VARIANT_TAILS.length; v++) {
      int variant = out.startDocument(index(v));
      out.string(SKU, VARIANT_PREFIX, i, VARIANT_SUFFIXES[v]);
      out.raw(VARIANT_TAILS[v], 0, VARIANT_TAILS[v].length);
      out.endDocument(variant);
    }
    out.endDocument(variants);
    out.dateTime(UPDATED_AT, 1_700_000_000_000L + i * 1000L);
    out.endDocument(start);
    return start;
  }

  private static byte[] decimal128(BigDecimal value) {
    Decimal128 decimal = new Decimal128(value);
    return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(decimal.getLow()).putLong(decimal.getHigh())
        .array();
  }
}
