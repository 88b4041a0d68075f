package io.mongocdc.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class JsonbSanitizerTest {

  @Test
  void cleanTextIsReturnedAsIs() {
    String json = "{\"a\": \"b\\n\\\"c\", \"e\": \"\\u00e9\\ud83d\\ude00\"}";
    assertSame(json, JsonbSanitizer.sanitize(json));
    String plain = "{\"a\": 1}";
    assertSame(plain, JsonbSanitizer.sanitize(plain));
  }

  @Test
  void nulEscapesAndRawNulsAreReplaced() {
    assertEquals("{\"a\": \"x\\uFFFDy\"}", JsonbSanitizer.sanitize("{\"a\": \"x\\u0000y\"}"));
    assertEquals("{\"a\": \"x\\uFFFDy\"}", JsonbSanitizer.sanitize("{\"a\": \"x\0y\"}"));
    assertEquals("{\"\\uFFFD\": 1}", JsonbSanitizer.sanitize("{\"\\u0000\": 1}"));
  }

  @Test
  void anEscapedBackslashIsNotAnEscape() {
    String json = "{\"a\": \"\\\\u0000\"}"; // the six characters \u0000, not NUL
    assertSame(json, JsonbSanitizer.sanitize(json));
  }

  @Test
  void unpairedSurrogatesAreReplaced() {
    assertEquals("[\"\\uFFFD!\"]", JsonbSanitizer.sanitize("[\"\\ud800!\"]"));
    assertEquals("[\"\\uFFFD\"]", JsonbSanitizer.sanitize("[\"\\udc00\"]"));
    assertEquals("[\"\\uFFFD\\u0041\"]", JsonbSanitizer.sanitize("[\"\\uD800\\u0041\"]"));
    assertEquals("[\"\\uFFFD\"]", JsonbSanitizer.sanitize("[\"\\ud800\"]"));
  }
}
