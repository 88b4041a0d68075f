package io.mongocdc.decode;

import static io.mongocdc.decode.RenderAssertions.assertStrictJson;
import static io.mongocdc.decode.RenderAssertions.decodeWithDriver;
import static io.mongocdc.decode.RenderAssertions.expectedAfterRoundTrip;
import static io.mongocdc.decode.RenderAssertions.normalizeParsed;
import static io.mongocdc.decode.RenderAssertions.parseWithDriver;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 100 000 seeded random documents (four slices of 25 000 from seeds of their own, so a slice on a
 * busy machine stays well inside the test timeout) with everything: every type, deep nesting, large arrays,
 * odd field names, NUL characters, ill-formed UTF-8, extreme numbers, and field names that
 * are Extended JSON keywords. For each one, in both modes: no exception, strict JSON in valid
 * UTF-8 without U+0000; and in relaxed mode, the driver reads it back to the input with the
 * documented treatments applied (docs/json-rendering.md), the one documented exception being
 * documents with keyword field names, which Extended JSON cannot tell from type wrappers.
 */
class BsonJsonFuzzTest {

  static final int DOCUMENTS = 25_000;
  static final long SEED = 0x5eed_2026L;

  @ParameterizedTest(name = "slice {0}")
  @ValueSource(ints = {0, 1, 2, 3})
  void twentyFiveThousandRandomDocumentsPerSlice(int slice) {
    TranscodingJsonRenderer relaxed = TranscodingJsonRenderer.relaxed();
    TranscodingJsonRenderer simplified = TranscodingJsonRenderer.simplified();
    RandomBsonDocuments documents = new RandomBsonDocuments(SEED + 10L * slice, true, true);
    int roundTripped = 0;
    int keywordAmbiguous = 0;
    for (int i = 0; i < DOCUMENTS; i++) {
      byte[] bson = documents.next();
      RawBsonDocument raw = new RawBsonDocument(bson);
      byte[] json;
      try {
        json = relaxed.renderUtf8(raw);
        assertStrictJson(json);
        assertStrictJson(simplified.renderUtf8(raw));
      } catch (RuntimeException | AssertionError e) {
        throw new AssertionError("document " + i + " (" + java.util.HexFormat.of().formatHex(bson) + ")", e);
      }
      BsonDocument input = decodeWithDriver(bson);
      String text = new String(json, StandardCharsets.UTF_8);
      try {
        assertEquals(expectedAfterRoundTrip(input), normalizeParsed(parseWithDriver(text)));
        roundTripped++;
      } catch (RuntimeException | AssertionError e) {
        // Looked for only here: the byte scan cost a third of the test when run for every document.
        if (!hasKeywordName(bson)) {
          fail("document " + i + " does not round-trip: " + text, e);
        }
        keywordAmbiguous++;
      }
    }
    assertEquals(DOCUMENTS, roundTripped + keywordAmbiguous);
    assertTrue(roundTripped > DOCUMENTS * 0.9, "round-tripped " + roundTripped);
  }

  /**
   * Whether a keyword appears as a field name: looked up in the raw bytes (a name is followed
   * by its 0x00 terminator), because a decoded document may have lost a duplicate name's first
   * value. A string value that happens to contain the same bytes only makes the check stricter
   * by one document.
   */
  private static boolean hasKeywordName(byte[] bson) {
    for (String keyword : RandomBsonDocuments.EXTENDED_JSON_KEYWORDS) {
      byte[] name = (keyword + '\0').getBytes(StandardCharsets.UTF_8);
      outer:
      for (int i = 0; i + name.length <= bson.length; i++) {
        for (int k = 0; k < name.length; k++) {
          if (bson[i + k] != name[k]) {
            continue outer;
          }
        }
        return true;
      }
    }
    return false;
  }
}
