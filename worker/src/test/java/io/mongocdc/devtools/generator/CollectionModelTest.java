package io.mongocdc.devtools.generator;

import static io.mongocdc.devtools.generator.SampleDocumentBytesTest.encode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.decode.Namespace;
import java.util.List;
import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class CollectionModelTest {

  private final CollectionModel model = new CollectionModel(new CollectionFormat(new Namespace("demo", "users"), 1));

  private static BsonBytes holding(BsonDocument document) {
    BsonBytes out = new BsonBytes();
    out.byteValue(0x7F); // not at the buffer's start, as inside an event
    byte[] bytes = encode(document);
    out.raw(bytes, 0, bytes.length);
    return out;
  }

  private byte[] documentAt(int index) {
    byte[] bytes = new byte[model.document(index).getByteBuffer().remaining()];
    model.document(index).getByteBuffer().get(bytes);
    return bytes;
  }

  @Test
  void updatesSetTheFieldsAsPutAllDoesWhetherTheDocumentHasThemOrNot() {
    List<BsonDocument> documents = List.of(SampleDocuments.small(7), SampleDocuments.medium(8), SampleDocuments.large(9));
    for (BsonDocument document : documents) {
      model.add(model.size(), holding(document), 1);
    }
    for (int update = 1; update <= 3; update++) {
      for (int index = 0; index < documents.size(); index++) {
        BsonDocument expected = documents.get(index);
        expected.putAll(new BsonDocument("version", new BsonInt32(update * 1000 + index))
            .append("updatedAt", new BsonDateTime(1_700_000_000_000L + update)));
        model.update(index, update * 1000 + index, 1_700_000_000_000L + update);
        assertArrayEquals(encode(expected), documentAt(index), "update " + update + " of " + expected.get("_id"));
      }
    }
  }

  @Test
  void aDocumentWrittenIntoAReusedBufferForgetsThePreviousOne() {
    model.add(0, holding(SampleDocuments.large(1)), 1);
    model.add(1, holding(SampleDocuments.small(2)), 1);
    model.update(0, 5, 6L);
    model.removeAt(0);
    // The large document's buffer is now spare; the next insert writes a small one into it.
    model.add(3, holding(SampleDocuments.small(3)), 1);
    model.update(1, 7, 8L);
    BsonDocument expected = SampleDocuments.small(3);
    expected.putAll(new BsonDocument("version", new BsonInt32(7)).append("updatedAt", new BsonDateTime(8L)));
    assertArrayEquals(encode(expected), documentAt(1));

    Map<BsonValue, BsonDocument> snapshot = model.snapshot();
    assertEquals(List.of(new BsonString("user-1"), new BsonString("user-3")), List.copyOf(snapshot.keySet()));
    model.update(1, 9, 10L);
    assertEquals(new BsonInt32(7), snapshot.get(new BsonString("user-3")).get("version"), "a snapshot does not change");
  }
}
