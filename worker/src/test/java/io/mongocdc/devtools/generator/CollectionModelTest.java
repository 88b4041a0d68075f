package io.mongocdc.devtools.generator;

import static io.mongocdc.devtools.generator.SampleDocumentBytesTest.encode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.Namespace;
import java.util.Random;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class CollectionModelTest {

  private final CollectionModel model = new CollectionModel(new CollectionFormat(new Namespace("demo", "users"), 1), 10);

  private byte[] documentOf(int key) {
    byte[] bytes = new byte[model.document(key).getByteBuffer().remaining()];
    model.document(key).getByteBuffer().get(bytes);
    return bytes;
  }

  private static BsonDocument user(int key, int content) {
    return SampleDocuments.small(content).append("_id", new BsonString("user-" + key));
  }

  @Test
  void updatesSetTheFieldsAsPutAllDoesAndReplacesDropThem() {
    model.prefill(3);
    for (int update = 1; update <= 3; update++) {
      BsonDocument expected = user(1, 1);
      expected.putAll(new BsonDocument("version", new BsonInt32(update)).append("updatedAt",
          new BsonDateTime(1_700_000_000_000L + update)));
      model.update(1, update, 1_700_000_000_000L + update);
      assertArrayEquals(encode(expected), documentOf(1), "update " + update);
    }
    int content = model.replace(1);
    assertArrayEquals(encode(user(1, content)), documentOf(1));
    assertArrayEquals(encode(user(2, 2)), documentOf(2), "an untouched key holds its first document");
  }

  @Test
  void onlyKeysEventsChangedAreStoredWhateverTheCollectionsSize() {
    CollectionModel large = new CollectionModel(new CollectionFormat(new Namespace("demo", "orders"), 0), 10_000_000);
    large.prefill(1_000_000);
    assertEquals(1_000_000, large.size());
    assertEquals(0, large.storedKeys());
    large.update(999_999, 1, 2L);
    large.delete(5);
    large.replace(7);
    assertEquals(large.insert(), 1_000_000, "an insert takes the next key, which needs no entry");
    assertEquals(3, large.storedKeys());
    assertEquals(1_000_000, large.size());
  }

  @Test
  void deletedKeysAreInsertedAgainWithNewContentOnceTheKeySpaceIsHandedOut() {
    model.prefill(10);
    assertFalse(model.canInsert());
    model.delete(4);
    assertNull(model.document(4));
    assertTrue(model.canInsert());
    assertEquals(4, model.insert());
    assertFalse(model.canInsert());
    int content = model.content(4);
    assertTrue(content >= 10, "new content, not the key's first document: " + content);
    assertArrayEquals(encode(user(4, content)), documentOf(4));
  }

  @Test
  void aRandomLiveKeyIsNeverADeletedOne() {
    model.prefill(10);
    for (int key = 0; key < 9; key++) {
      model.delete(key);
    }
    Random random = new Random(1);
    for (int i = 0; i < 100; i++) {
      assertEquals(9, model.randomLiveKey(random));
    }
  }
}
