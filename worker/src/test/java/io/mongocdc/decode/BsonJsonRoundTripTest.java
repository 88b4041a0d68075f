package io.mongocdc.decode;

import static io.mongocdc.decode.RenderAssertions.assertStrictJson;
import static io.mongocdc.decode.RenderAssertions.decodeWithDriver;
import static io.mongocdc.decode.RenderAssertions.expectedAfterRoundTrip;
import static io.mongocdc.decode.RenderAssertions.normalizeParsed;
import static io.mongocdc.decode.RenderAssertions.parseWithDriver;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * Relaxed output of generated documents (every type, well-formed text, no keyword field
 * names) reads back with the driver to exactly the input, up to relaxed JSON's int64 -> int32.
 */
class BsonJsonRoundTripTest {

  private final TranscodingJsonRenderer relaxed = TranscodingJsonRenderer.relaxed();

  @Test
  void generatedDocumentsRoundTripExactly() {
    RandomBsonDocuments documents = new RandomBsonDocuments(20_261_130L, false, false);
    for (int i = 0; i < 5_000; i++) {
      byte[] bson = documents.next();
      byte[] json = relaxed.renderUtf8(new RawBsonDocument(bson));
      assertStrictJson(json);
      String text = new String(json, StandardCharsets.UTF_8);
      assertEquals(expectedAfterRoundTrip(decodeWithDriver(bson)), normalizeParsed(parseWithDriver(text)),
          "document " + i + ": " + text);
      assertEquals(text, relaxed.render(bson, 0, bson.length));
    }
  }

  @Test
  void concurrentRenderingGivesTheSameResultsAsSequential() throws Exception {
    RandomBsonDocuments documents = new RandomBsonDocuments(7L, true, true);
    List<byte[]> corpus = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      byte[] bson = documents.next();
      corpus.add(bson);
      expected.add(relaxed.render(bson, 0, bson.length));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<String>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int start = t;
        results.add(pool.submit(() -> {
          List<String> out = new ArrayList<>();
          for (int i = 0; i < corpus.size(); i++) {
            byte[] bson = corpus.get((i + start * 500) % corpus.size());
            out.add(relaxed.render(new RawBsonDocument(bson)));
          }
          return out;
        }));
      }
      for (int t = 0; t < 4; t++) {
        List<String> out = results.get(t).get();
        for (int i = 0; i < out.size(); i++) {
          assertEquals(expected.get((i + t * 500) % corpus.size()), out.get(i));
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
