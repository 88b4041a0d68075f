package io.mongocdc.decode;

import static io.mongocdc.decode.RawBsonWriter.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bytes that are not a BSON document fail with a DocumentRenderException that says where and why. */
class BsonJsonCorruptInputTest {

  private final TranscodingJsonRenderer renderer = TranscodingJsonRenderer.relaxed();

  private DocumentRenderException fail(byte[] bson) {
    return assertThrows(DocumentRenderException.class, () -> renderer.render(bson, 0, bson.length));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      // BSON corpus decode errors and similar.
      "04000000 | at least 5 bytes",
      "0600000000 | length prefix says 6",
      "0500000001 | does not end with a 0x00",
      "0a000000107800010000 | needs 4 bytes",
      "0c0000000278000100000000 | string length 1 runs past",
      "0d000000027800000000000000 | length 0 is not positive",
      "0e00000002780001000000610000 | does not end with a 0x00 byte",
      "090000000878000200 | boolean byte is 2",
      "0800000080780000 | unknown BSON type 0x80",
      "0d000000037800060000000000 | does not fit in its parent",
      "100000000578000300000002ffffff00 | subtype 2 inner length",
      "13000000057800060000000205000000010200 | subtype 2 inner length",
      "0a000000037800050000 | needs 5 bytes",
      "0800000010780000 | needs 4 bytes",
      "07000000027800 | not terminated",
  })
  void corpusLikeDecodeErrors(String hex, String reason) {
    DocumentRenderException e = fail(HexFormat.of().parseHex(hex));
    assertTrue(e.getMessage().contains(reason), e.getMessage());
  }

  @Test
  void messageNamesTheFieldPathAndOffset() {
    RawBsonWriter w = new RawBsonWriter();
    int top = w.startDocument();
    w.name(0x03, "outer");
    int inner = w.startDocument();
    w.name(0x04, "list");
    int list = w.startDocument();
    w.name(0x08, "0").byte1(7);
    w.endDocument(list);
    w.endDocument(inner);
    w.endDocument(top);
    DocumentRenderException e = fail(w.toByteArray());
    assertTrue(e.getMessage().contains("field 'outer.list.0'"), e.getMessage());
    assertTrue(e.getMessage().contains("at byte 28"), e.getMessage());
  }

  @Test
  void everyTruncationOfAValidDocumentFailsCleanly() {
    byte[] valid = RenderAssertions.bytesOf(new RawBsonDocument(BsonDocument.parse("""
        {"a": 1, "b": {"c": [1, 2.5, "x", {"$date": 5}], "d": {"$binary": {"base64": "AAEC", "subType": "02"}}},
         "e": {"$code": "f", "$scope": {"z": null}}, "f": {"$regularExpression": {"pattern": "p", "options": "i"}},
         "g": {"$dbPointer": {"$ref": "n", "$id": {"$oid": "56e1fc72e0c917e9c4714161"}}},
         "h": {"$numberDecimal": "1.5"}, "i": {"$timestamp": {"t": 1, "i": 2}}}"""),
        new BsonDocumentCodec()));
    for (int cut = 0; cut < valid.length; cut++) {
      byte[] truncated = Arrays.copyOf(valid, cut);
      // As given (length prefix now wrong) and with the prefix patched to agree.
      fail(truncated);
      if (cut >= 5) {
        byte[] patched = truncated.clone();
        patched[0] = (byte) cut;
        patched[1] = (byte) (cut >> 8);
        patched[cut - 1] = 0;
        try {
          renderer.render(patched, 0, patched.length);
        } catch (DocumentRenderException expected) {
          // fine: either it happens to be valid, or it fails with a reason
        }
      }
    }
  }

  @Test
  void randomByteFlipsNeverThrowAnythingElse() {
    byte[] valid = RenderAssertions.bytesOf(new RawBsonDocument(BsonDocument.parse("""
        {"a": "text", "b": {"c": [1, {"$numberLong": "2"}, true, null]},
         "e": {"$code": "f", "$scope": {"z": {"$minKey": 1}}}, "s": {"$symbol": "q"}}"""),
        new BsonDocumentCodec()));
    Random random = new Random(3);
    for (int i = 0; i < 20_000; i++) {
      byte[] mutated = valid.clone();
      for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
        mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
      }
      try {
        String json = renderer.render(mutated, 0, mutated.length);
        RenderAssertions.assertStrictJson(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      } catch (DocumentRenderException expected) {
        assertTrue(expected.getMessage().startsWith("cannot render BSON document: "));
      }
    }
  }

  @Test
  void offsetAndLengthOutsideTheArrayAreRejected() {
    byte[] bson = HexFormat.of().parseHex("0500000000");
    assertThrows(IndexOutOfBoundsException.class, () -> renderer.render(bson, 2, 5));
    assertEquals("{}", renderer.render(bson, 0, 5));
    assertEquals("{}", renderer.render(utf8("xx\u0005\u0000\u0000\u0000\u0000"), 2, 5));
  }
}
