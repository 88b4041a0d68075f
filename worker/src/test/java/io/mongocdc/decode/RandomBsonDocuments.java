package io.mongocdc.decode;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Seeded, deterministic random BSON documents written byte by byte: every BSON type, edge
 * numbers, deep nesting, large arrays, odd field names, and (when asked) NUL characters,
 * ill-formed UTF-8 and field names that spell Extended JSON keywords.
 */
final class RandomBsonDocuments {

  /** Field names that Extended JSON readers treat as type wrappers or conventions. */
  static final List<String> EXTENDED_JSON_KEYWORDS = List.of(
      "$oid", "$date", "$numberInt", "$numberLong", "$numberDouble", "$numberDecimal", "$binary",
      "$uuid", "$code", "$scope", "$timestamp", "$regularExpression", "$regex", "$options",
      "$dbPointer", "$symbol", "$minKey", "$maxKey", "$undefined", "$ref", "$id", "$db", "$type");

  private static final String[] ODD_NAMES = {
      "", ".", "a.b", "$x", "$", "x$", "a.$b", "_id", "ключ", "日本語", "🎉", "tab\there", "nl\n",
      "\u0001", "quote\"", "back\\slash", "/", "\u2028", "\u007f", "é", "0", "-1", "__proto__",
  };

  private static final String[] DECIMALS = {
      "0", "-0", "0E-6176", "-0E+6111", "1", "1.0", "1.00", "-1", "0.1", "1E+6111", "1E-6176",
      "9.999999999999999999999999999999999E+6144", "1234567890123456789012345678901234",
      "-1.5E-300", "NaN", "-NaN", "Infinity", "-Infinity", "12.345", "3.14159265358979323846",
  };

  private static final double[] DOUBLES = {
      0.0, -0.0, 1.0, -1.0, 0.1, 1.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
      Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_NORMAL,
      9007199254740992.0, 9007199254740993.0, 1e7, 9999999.0, 1e-3, 9.99e-4, 1e20, 1e21, 1e300,
      Long.MAX_VALUE, Long.MIN_VALUE, Integer.MAX_VALUE, 123456.789,
      Double.longBitsToDouble(0x7ff8000000000001L), Double.longBitsToDouble(0xfff0000000000001L),
  };

  private static final long[] LONGS = {
      0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L,
      Long.MAX_VALUE, Long.MIN_VALUE, 9_007_199_254_740_993L, -9_007_199_254_740_993L, 1L << 53,
  };

  private static final long[] DATES = {
      0, -1, 1, IsoDateTimeFormat.LAST_MILLIS_OF_9999, IsoDateTimeFormat.LAST_MILLIS_OF_9999 + 1,
      -62_135_596_800_000L, -62_167_219_200_001L, Long.MAX_VALUE, Long.MIN_VALUE, 951_782_400_000L,
  };

  private final Random random;
  private final boolean oddText;
  private final boolean keywordNames;

  /**
   * @param oddText include NUL characters and ill-formed UTF-8
   * @param keywordNames sometimes use Extended JSON keywords as field names
   */
  RandomBsonDocuments(long seed, boolean oddText, boolean keywordNames) {
    this.random = new Random(seed);
    this.oddText = oddText;
    this.keywordNames = keywordNames;
  }

  byte[] next() {
    RawBsonWriter w = new RawBsonWriter();
    int roll = random.nextInt(1000);
    if (roll < 3) {
      deep(w, 100 + random.nextInt(150));
    } else if (roll < 8) {
      largeArray(w);
    } else {
      document(w, random.nextInt(5), false);
    }
    return w.toByteArray();
  }

  private void document(RawBsonWriter w, int depthLeft, boolean array) {
    int mark = w.startDocument();
    int fields = random.nextInt(depthLeft > 0 ? 9 : 6);
    for (int i = 0; i < fields; i++) {
      int type = randomType(depthLeft);
      w.name(type, array ? ascii(Integer.toString(i)) : name(i));
      value(w, type, depthLeft);
    }
    w.endDocument(mark);
  }

  private void deep(RawBsonWriter w, int depth) {
    int[] marks = new int[depth];
    for (int level = 0; level < depth; level++) {
      marks[level] = w.startDocument();
      w.name(level % 3 == 0 ? 0x04 : 0x03, level % 3 == 0 ? ascii("0") : name(level));
    }
    int mark = w.startDocument();
    w.name(0x02, ascii("leaf")).string(text());
    w.endDocument(mark);
    for (int level = depth - 1; level >= 0; level--) {
      w.endDocument(marks[level]);
    }
  }

  private void largeArray(RawBsonWriter w) {
    int mark = w.startDocument();
    w.name(0x04, ascii("big"));
    int array = w.startDocument();
    int n = 500 + random.nextInt(3000);
    for (int i = 0; i < n; i++) {
      int type = random.nextBoolean() ? 0x10 : random.nextBoolean() ? 0x02 : 0x01;
      w.name(type, ascii(Integer.toString(i)));
      value(w, type, 0);
    }
    w.endDocument(array);
    w.endDocument(mark);
  }

  private int randomType(int depthLeft) {
    int[] types = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
        0x10, 0x11, 0x12, 0x13, 0xFF, 0x7F};
    while (true) {
      int type = random.nextInt(3) == 0 ? (random.nextBoolean() ? 0x02 : 0x10) : types[random.nextInt(types.length)];
      if (depthLeft > 0 || (type != 0x03 && type != 0x04 && type != 0x0F)) {
        return type;
      }
    }
  }

  private void value(RawBsonWriter w, int type, int depthLeft) {
    switch (type) {
      case 0x01 -> w.int64(Double.doubleToRawLongBits(randomDouble()));
      case 0x02, 0x0D, 0x0E -> w.string(text());
      case 0x03 -> document(w, depthLeft - 1, false);
      case 0x04 -> document(w, depthLeft - 1, true);
      case 0x05 -> binary(w);
      case 0x06, 0x0A, 0xFF, 0x7F -> { }
      case 0x07 -> w.bytes(bytes(12));
      case 0x08 -> w.byte1(random.nextInt(2));
      case 0x09 -> w.int64(random.nextInt(3) == 0 ? DATES[random.nextInt(DATES.length)]
          : random.nextBoolean() ? random.nextLong() : (long) (random.nextDouble() * 4e12) - 1_000_000_000_000L);
      case 0x0B -> {
        w.cstring(cstring());
        w.cstring(regexOptions());
      }
      case 0x0C -> {
        w.string(text());
        w.bytes(bytes(12));
      }
      case 0x0F -> {
        int mark = w.size();
        w.int32(0);
        w.string(text());
        document(w, depthLeft - 1, false);
        w.patchInt(mark, w.size() - mark); // the total is known only now
      }
      case 0x10 -> w.int32(random.nextInt(4) == 0 ? (int) LONGS[random.nextInt(5)] : random.nextInt());
      case 0x11 -> w.int64(random.nextLong());
      case 0x12 -> w.int64(random.nextInt(3) == 0 ? LONGS[random.nextInt(LONGS.length)]
          : random.nextBoolean() ? random.nextLong() : random.nextInt(1000));
      case 0x13 -> decimal(w);
      default -> throw new IllegalStateException("type " + type);
    }
  }

  private double randomDouble() {
    return switch (random.nextInt(4)) {
      case 0 -> DOUBLES[random.nextInt(DOUBLES.length)];
      case 1 -> Double.longBitsToDouble(random.nextLong());
      case 2 -> (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(40) - 20);
      default -> random.nextInt(2000) - 1000;
    };
  }

  private void decimal(RawBsonWriter w) {
    if (random.nextInt(4) == 0) {
      // Any 128 bits, including non-canonical encodings.
      w.int64(random.nextLong());
      w.int64(random.nextLong());
      return;
    }
    org.bson.types.Decimal128 d = org.bson.types.Decimal128.parse(DECIMALS[random.nextInt(DECIMALS.length)]);
    w.int64(d.getLow());
    w.int64(d.getHigh());
  }

  private void binary(RawBsonWriter w) {
    int[] subtypes = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x80, 0xff};
    int subtype = subtypes[random.nextInt(subtypes.length)];
    byte[] data = bytes(subtype == 4 || subtype == 3 ? 16 : random.nextInt(40));
    if (subtype == 2) {
      w.int32(data.length + 4);
      w.byte1(2);
      w.int32(data.length);
    } else {
      w.int32(data.length);
      w.byte1(subtype);
    }
    w.bytes(data);
  }

  private byte[] name(int index) {
    int roll = random.nextInt(100);
    if (keywordNames && roll == 0) {
      return ascii(EXTENDED_JSON_KEYWORDS.get(random.nextInt(EXTENDED_JSON_KEYWORDS.size())));
    }
    if (roll < 15) {
      return ODD_NAMES[random.nextInt(ODD_NAMES.length)].getBytes(StandardCharsets.UTF_8);
    }
    if (oddText && roll < 18) {
      return new byte[] {'k', (byte) (0x80 + random.nextInt(128))};
    }
    return ascii("f" + index + (random.nextBoolean() ? "" : "_" + random.nextInt(100)));
  }

  /** String content bytes (no length, no terminator). */
  private byte[] text() {
    int roll = random.nextInt(100);
    StringBuilder s = new StringBuilder();
    int length = roll < 3 ? 1000 + random.nextInt(5000) : random.nextInt(24);
    RawBsonWriter w = new RawBsonWriter();
    for (int i = 0; i < length; i++) {
      int kind = random.nextInt(40);
      if (kind < 28) {
        s.append((char) (' ' + random.nextInt(95)));
      } else if (kind < 31) {
        s.append("\"\\\n\t\b\f\r\u0001\u001f/".charAt(random.nextInt(10)));
      } else if (kind < 34) {
        s.append((char) (0xA0 + random.nextInt(0xD000)));
      } else if (kind < 36) {
        s.appendCodePoint(0x10000 + random.nextInt(0xFFFFF));
      } else if (kind < 37) {
        s.append("é日本🎉\u2028\u2400\uFFFD".charAt(random.nextInt(7)));
      } else if (oddText && kind < 38) {
        s.append('\u0000');
      } else if (oddText && kind < 40) {
        w.bytes(s.toString().getBytes(StandardCharsets.UTF_8));
        s.setLength(0);
        w.bytes(illFormed());
      } else {
        s.append('x');
      }
    }
    w.bytes(s.toString().getBytes(StandardCharsets.UTF_8));
    return w.toByteArray();
  }

  private byte[] cstring() {
    byte[] text = text();
    for (int i = 0; i < text.length; i++) {
      if (text[i] == 0) {
        text[i] = '0';
      }
    }
    return text;
  }

  private byte[] illFormed() {
    byte[][] samples = {
        {(byte) 0xff}, {(byte) 0xc0, (byte) 0xaf}, {(byte) 0x80}, {(byte) 0xe2, (byte) 0x82},
        {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
        {(byte) 0xf0, (byte) 0x9f, (byte) 0x98}, {(byte) 0xc3}, {(byte) 0xe0, (byte) 0x80, (byte) 0x80},
    };
    if (random.nextBoolean()) {
      return samples[random.nextInt(samples.length)];
    }
    return new byte[] {(byte) (0x80 + random.nextInt(128))};
  }

  private byte[] regexOptions() {
    String letters = "imsxlu";
    StringBuilder options = new StringBuilder();
    for (char c : letters.toCharArray()) {
      if (random.nextInt(3) == 0) {
        options.insert(random.nextInt(options.length() + 1), c);
      }
    }
    return ascii(options.toString());
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
