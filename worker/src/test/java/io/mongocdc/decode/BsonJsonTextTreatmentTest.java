package io.mongocdc.decode;

import static io.mongocdc.decode.RawBsonWriter.utf8;
import static io.mongocdc.decode.RenderAssertions.assertStrictJson;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * NUL characters (which jsonb rejects) and ill-formed UTF-8 are never an error: NUL becomes
 * U+2400, each ill-formed subpart U+FFFD, exactly where the driver's own decoding puts U+FFFD.
 */
class BsonJsonTextTreatmentTest {

  private static byte[] stringDocument(int type, byte[] name, byte[] content) {
    RawBsonWriter w = new RawBsonWriter();
    int mark = w.startDocument();
    w.name(type, name).string(content);
    w.endDocument(mark);
    return w.toByteArray();
  }

  private static String render(JsonRenderMode mode, byte[] bson) {
    String json = new TranscodingJsonRenderer(mode).render(bson, 0, bson.length);
    assertStrictJson(json.getBytes(StandardCharsets.UTF_8));
    return json;
  }

  @ParameterizedTest
  @EnumSource(JsonRenderMode.class)
  void nulBecomesSymbolForNull(JsonRenderMode mode) {
    byte[] bson = stringDocument(0x02, utf8("s"), new byte[] {'a', 0, 'b', 0});
    assertEquals("{\"s\":\"a\u2400b\u2400\"}", render(mode, bson));
  }

  @Test
  void nulInDeprecatedStringTypesToo() {
    assertEquals("{\"c\":{\"$code\":\"\u2400\"}}", render(JsonRenderMode.RELAXED, stringDocument(0x0D, utf8("c"), new byte[] {0})));
    assertEquals("{\"c\":{\"$symbol\":\"\u2400\"}}", render(JsonRenderMode.RELAXED, stringDocument(0x0E, utf8("c"), new byte[] {0})));
  }

  @Test
  void driverBuiltStringsWithNulToo() {
    RawBsonDocument raw = new RawBsonDocument(new BsonDocument("s", new BsonString("x\u0000y")), new BsonDocumentCodec());
    assertEquals("{\"s\":\"x\u2400y\"}", TranscodingJsonRenderer.relaxed().render(raw));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "ff", "c0af", "c1bf", "80", "bf", "e282", "e0809f", "eda080", "edbfbf", "f4908080", "f5", "f8888080",
      "f0908d", "f09f98", "61ff62", "e2", "cecf", "c3", "fe", "f0", "f48fbfbf", "ed9fbf", "efbfbf",
  })
  void illFormedUtf8IsReplacedExactlyAsTheDriverDecodesIt(String hex) {
    byte[] content = HexFormat.of().parseHex(hex);
    byte[] bson = stringDocument(0x02, utf8("s"), content);
    String expected = new String(content, StandardCharsets.UTF_8); // the driver's decoding
    assertEquals(RenderAssertions.decodeWithDriver(bson).getString("s").getValue(), expected);
    for (JsonRenderMode mode : JsonRenderMode.values()) {
      String json = render(mode, bson);
      assertEquals(new BsonString(expected),
          RenderAssertions.parseWithDriver(json).get("s"), mode + " " + hex + " -> " + json);
    }
  }

  @Test
  void illFormedUtf8InFieldNames() {
    byte[] bson = stringDocument(0x02, new byte[] {'k', (byte) 0xff, (byte) 0xc3}, utf8("v"));
    assertEquals("{\"k\uFFFD\uFFFD\":\"v\"}", render(JsonRenderMode.RELAXED, bson));
  }

  @Test
  void longStringsWithSequencesAcrossChunkBoundaries() {
    java.util.Random random = new java.util.Random(5);
    byte[][] pieces = {utf8("é"), utf8("日"), utf8("🎉"), utf8("\n"), {0}, {(byte) 0xff}, {(byte) 0xe2, (byte) 0x82},
        utf8("a"), utf8("\""), {(byte) 0xed, (byte) 0xa0, (byte) 0x80}};
    for (int round = 0; round < 20; round++) {
      java.io.ByteArrayOutputStream content = new java.io.ByteArrayOutputStream();
      while (content.size() < 30_000 + random.nextInt(10_000)) {
        content.writeBytes(pieces[random.nextInt(pieces.length)]);
      }
      byte[] bson = stringDocument(0x02, utf8("s"), content.toByteArray());
      String json = render(JsonRenderMode.RELAXED, bson);
      String expected = RenderAssertions.nul(RenderAssertions.decodeWithDriver(bson).getString("s").getValue());
      assertEquals(expected, RenderAssertions.parseWithDriver(json).getString("s").getValue());
    }
  }
}
