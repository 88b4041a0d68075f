package io.mongocdc.destination;

import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.Namespace;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Destination table names from source namespaces.
 *
 * <p>The table of collection {@code c} in database {@code d} is named {@code d.c}, verbatim
 * (case, dots, spaces, quotes and any Unicode kept), and every SQL statement quotes it. A name
 * longer than PostgreSQL's identifier limit of 63 bytes (UTF-8) is shortened deterministically:
 * its longest prefix of at most {@value #PREFIX_BYTES} bytes that ends on a character boundary,
 * then {@code ~}, then the first 12 hex digits of the SHA-256 of the full name. Two long names
 * equal in their first 63 bytes therefore get different tables. The function is pure: same
 * input, same name, on every worker and version.
 */
public final class TableNaming implements DestinationTableResolver {

  /** PostgreSQL's NAMEDATALEN - 1: longer identifiers are silently truncated by the server. */
  public static final int MAX_IDENTIFIER_BYTES = 63;

  static final int HASH_HEX_DIGITS = 12;
  static final int PREFIX_BYTES = MAX_IDENTIFIER_BYTES - 1 - HASH_HEX_DIGITS;

  private static final TableNaming INSTANCE = new TableNaming();

  public static TableNaming instance() {
    return INSTANCE;
  }

  @Override
  public String tableFor(Namespace source) {
    return tableName(source);
  }

  /** The destination table name (unquoted) for a namespace. */
  public static String tableName(Namespace source) {
    return shorten(source.fullName());
  }

  /**
   * The history table of the table named {@code table}: {@code <table>_history}, shortened like
   * any name when it does not fit in 63 bytes.
   */
  public static String historyTableName(String table) {
    return shorten(table + "_history");
  }

  /** {@code name} if it fits in 63 bytes, else its shortened form with a hash suffix. */
  public static String shorten(String name) {
    if (name.isEmpty()) {
      throw new IllegalArgumentException("a table name cannot be empty");
    }
    if (name.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("a table name cannot contain NUL: " + name);
    }
    byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
    if (utf8.length <= MAX_IDENTIFIER_BYTES) {
      return name;
    }
    StringBuilder prefix = new StringBuilder();
    int bytes = 0;
    for (int i = 0; i < name.length(); ) {
      int cp = name.codePointAt(i);
      int len = utf8Length(cp);
      if (bytes + len > PREFIX_BYTES) {
        break;
      }
      prefix.appendCodePoint(cp);
      bytes += len;
      i += Character.charCount(cp);
    }
    return prefix + "~" + HexFormat.of().formatHex(sha256(utf8)).substring(0, HASH_HEX_DIGITS);
  }

  /** A quoted SQL identifier: {@code "} + name with every {@code "} doubled + {@code "}. */
  public static String quote(String identifier) {
    if (identifier.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("an identifier cannot contain NUL: " + identifier);
    }
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /** {@code "schema"."table"}. */
  public static String qualified(String schema, String table) {
    return quote(schema) + "." + quote(table);
  }

  static int utf8Length(int codePoint) {
    if (codePoint < 0x80) {
      return 1;
    } else if (codePoint < 0x800) {
      return 2;
    } else if (codePoint < 0x10000) {
      return 3;
    }
    return 4;
  }

  static byte[] sha256(byte[] input) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(input);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
