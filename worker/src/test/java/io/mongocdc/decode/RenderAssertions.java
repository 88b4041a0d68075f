package io.mongocdc.decode;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonDbPointer;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;
import org.bson.json.JsonReader;

/** Shared checks: strict JSON validity, and "equal after relaxed Extended JSON's documented losses". */
final class RenderAssertions {

  /** Strict: no NaN literals, no unescaped controls, no comments, deep nesting allowed. */
  private static final JsonFactory STRICT_JSON = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder()
          .maxNestingDepth(100_000).maxStringLength(Integer.MAX_VALUE).maxNumberLength(100_000).build())
      .build();

  private RenderAssertions() {}

  /** Throws unless {@code json} is one well-formed JSON value in valid UTF-8 without U+0000. */
  static void assertStrictJson(byte[] json) {
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(json));
    } catch (CharacterCodingException e) {
      throw new AssertionError("output is not valid UTF-8", e);
    }
    try (JsonParser parser = STRICT_JSON.createParser(json)) {
      int tokens = 0;
      while (parser.nextToken() != null) {
        tokens++;
        if (parser.currentToken() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING
            || parser.currentToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
          if (parser.getText().indexOf('\u0000') >= 0) {
            throw new AssertionError("output contains U+0000, which jsonb rejects");
          }
        }
      }
      if (tokens == 0) {
        throw new AssertionError("empty output");
      }
    } catch (IOException e) {
      throw new AssertionError("output is not strict JSON: " + e.getMessage() + "\n"
          + new String(json, StandardCharsets.UTF_8), e);
    }
  }

  /** The driver's reading of relaxed Extended JSON. */
  static BsonDocument parseWithDriver(String json) {
    return new BsonDocumentCodec().decode(new JsonReader(json), DecoderContext.builder().build());
  }

  /** The driver's decoding of raw BSON (ill-formed UTF-8 already replaced by U+FFFD). */
  static BsonDocument decodeWithDriver(byte[] bson) {
    return new RawBsonDocument(bson).decode(new BsonDocumentCodec());
  }

  /**
   * The document as relaxed Extended JSON reads back: the documented treatments applied (NUL
   * becomes U+2400), and int64 values in int32 range become int32 (relaxed JSON writes both as
   * plain integers, and a reader picks the smallest type).
   */
  static BsonValue expectedAfterRoundTrip(BsonValue value) {
    switch (value.getBsonType()) {
      case DOCUMENT: {
        BsonDocument copy = new BsonDocument();
        for (Map.Entry<String, BsonValue> e : value.asDocument().entrySet()) {
          copy.put(e.getKey(), expectedAfterRoundTrip(e.getValue()));
        }
        return copy;
      }
      case ARRAY: {
        BsonArray copy = new BsonArray();
        for (BsonValue v : value.asArray()) {
          copy.add(expectedAfterRoundTrip(v));
        }
        return copy;
      }
      case STRING:
        return new BsonString(nul(value.asString().getValue()));
      case SYMBOL:
        return new BsonSymbol(nul(value.asSymbol().getSymbol()));
      case JAVASCRIPT:
        return new BsonJavaScript(nul(value.asJavaScript().getCode()));
      case JAVASCRIPT_WITH_SCOPE:
        return new BsonJavaScriptWithScope(
            nul(value.asJavaScriptWithScope().getCode()),
            expectedAfterRoundTrip(value.asJavaScriptWithScope().getScope()).asDocument());
      case DB_POINTER:
        return new BsonDbPointer(nul(value.asDBPointer().getNamespace()), value.asDBPointer().getId());
      case INT64: {
        long v = value.asInt64().getValue();
        return v == (int) v ? new BsonInt32((int) v) : value;
      }
      case DECIMAL128:
        // Non-canonical encodings read back canonical; compare the values' text.
        return new BsonString(decimalKey(value.asDecimal128().getValue()));
      default:
        return value;
    }
  }

  /** Like {@link #expectedAfterRoundTrip} for the parsed side: only decimals are normalized. */
  static BsonValue normalizeParsed(BsonValue value) {
    switch (value.getBsonType()) {
      case DOCUMENT: {
        BsonDocument copy = new BsonDocument();
        for (Map.Entry<String, BsonValue> e : value.asDocument().entrySet()) {
          copy.put(e.getKey(), normalizeParsed(e.getValue()));
        }
        return copy;
      }
      case ARRAY: {
        BsonArray copy = new BsonArray();
        for (BsonValue v : value.asArray()) {
          copy.add(normalizeParsed(v));
        }
        return copy;
      }
      case JAVASCRIPT_WITH_SCOPE:
        return new BsonJavaScriptWithScope(
            value.asJavaScriptWithScope().getCode(),
            normalizeParsed(value.asJavaScriptWithScope().getScope()).asDocument());
      case DECIMAL128:
        return new BsonString(decimalKey(value.asDecimal128().getValue()));
      default:
        return value;
    }
  }

  /** Exactly the document's bytes (a RawBsonDocument's array may be longer). */
  static byte[] bytesOf(RawBsonDocument document) {
    org.bson.ByteBuf buffer = document.getByteBuffer();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  /** Sign, coefficient and exponent; a non-canonical coefficient (>= 10^34) reads as zero. */
  static String decimalKey(org.bson.types.Decimal128 d) {
    if (d.isNaN()) {
      return "NaN";
    }
    if (d.isInfinite()) {
      return d.isNegative() ? "-Infinity" : "Infinity";
    }
    java.math.BigDecimal abs =
        org.bson.types.Decimal128.fromIEEE754BIDEncoding(d.getHigh() & Long.MAX_VALUE, d.getLow()).bigDecimalValue();
    java.math.BigInteger coefficient = abs.unscaledValue();
    if (coefficient.compareTo(java.math.BigInteger.TEN.pow(34)) >= 0) {
      coefficient = java.math.BigInteger.ZERO;
    }
    return "decimal:" + (d.isNegative() ? "-" : "") + coefficient + "E" + (-abs.scale());
  }

  static String nul(String s) {
    return s.replace('\u0000', '\u2400');
  }
}
