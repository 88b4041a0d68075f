package io.mongocdc.devtools.generator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.mongocdc.decode.Namespace;
import java.util.Random;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class SampleDocumentBytesTest {

  private static final int[] NUMBERS = {0, 1, 3, 4, 9, 10, 99, 100, 101, 4999, 5000, 9_999, 10_000, 123_456, 7_654_321};

  static byte[] encode(BsonDocument document) {
    RawBsonDocument raw = new RawBsonDocument(document, new BsonDocumentCodec());
    byte[] bytes = new byte[raw.getByteBuffer().remaining()];
    raw.getByteBuffer().get(bytes);
    return bytes;
  }

  private static byte[] written(CollectionFormat format, int id, int number, Writer writer) {
    BsonBytes out = new BsonBytes();
    out.byteValue(0x7F); // not at the buffer's start, as inside an event
    int start = writer.write(out, format, id, number);
    byte[] bytes = out.toByteArray();
    return java.util.Arrays.copyOfRange(bytes, start, bytes.length);
  }

  private interface Writer {
    int write(BsonBytes out, CollectionFormat format, int id, int number);
  }

  @Test
  void ordersAreTheSampleMediumDocumentsWithTheCollectionsKey() {
    CollectionFormat orders = new CollectionFormat(new Namespace("demo", "orders"), 0);
    for (int number : NUMBERS) {
      BsonDocument expected = SampleDocuments.medium(number);
      expected.put("_id", new BsonString("orders-" + (number + 3)));
      assertArrayEquals(encode(expected), written(orders, number + 3, number, SampleDocumentBytes::medium), "#" + number);
    }
  }

  @Test
  void usersAreTheSampleSmallDocuments() {
    CollectionFormat users = new CollectionFormat(new Namespace("demo", "users"), 1);
    for (int number : NUMBERS) {
      BsonDocument expected = SampleDocuments.small(number);
      expected.put("_id", new BsonString("user-" + (number + 1)));
      assertArrayEquals(encode(expected), written(users, number + 1, number, SampleDocumentBytes::small), "#" + number);
    }
  }

  @Test
  void productsAreSmallOrLargeSampleDocumentsWithAnIntKey() {
    CollectionFormat products = new CollectionFormat(new Namespace("demo", "products"), 2);
    for (int number : NUMBERS) {
      BsonDocument small = SampleDocuments.smallProduct(number).append("_id", new BsonInt32(number + 2));
      assertArrayEquals(encode(small), written(products, number + 2, number, SampleDocumentBytes::smallProduct));
      BsonDocument large = SampleDocuments.large(number).append("_id", new BsonInt32(number + 2));
      assertArrayEquals(encode(large), written(products, number + 2, number, SampleDocumentBytes::large));
    }
  }

  @Test
  void aProductIsLargeOnceInFiftyNumbersAndAlwaysForTheSameNumber() {
    CollectionFormat products = new CollectionFormat(new Namespace("demo", "products"), 2, 5);
    int large = 0;
    for (int i = 0; i < 5_000; i++) {
      BsonBytes out = new BsonBytes();
      products.writeDocument(out, i, i);
      BsonBytes again = new BsonBytes();
      products.writeDocument(again, i, i);
      assertArrayEquals(out.toByteArray(), again.toByteArray(), "number " + i);
      large += out.position() > 10_000 ? 1 : 0;
    }
    org.junit.jupiter.api.Assertions.assertTrue(large > 60 && large < 140, large + " large of 5000");
  }
}
