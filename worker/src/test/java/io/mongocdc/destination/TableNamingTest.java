package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.Namespace;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableNamingTest {

  private static int bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void shortNamesAreKeptVerbatim() {
    assertEquals("db.coll", TableNaming.tableName(new Namespace("db", "coll")));
    assertEquals("db.a.b c\"d", TableNaming.tableName(new Namespace("db", "a.b c\"d")));
    String exactly63 = "d." + "x".repeat(61);
    assertEquals(exactly63, TableNaming.tableName(new Namespace("d", "x".repeat(61))));
  }

  @Test
  void longNamesAreShortenedDeterministicallyWithAHash() {
    Namespace ns = new Namespace("db", "c".repeat(200));
    String name = TableNaming.tableName(ns);
    assertTrue(bytes(name) <= 63, name);
    assertTrue(name.startsWith("db.ccc"), name);
    assertTrue(name.matches(".*~[0-9a-f]{12}"), name);
    assertEquals(name, TableNaming.tableName(new Namespace("db", "c".repeat(200))));
    // the example in docs/destination.md
    assertEquals("db." + "c".repeat(47) + "~55983dad92df", name);
  }

  @Test
  void namesEqualInTheirFirst63BytesGetDifferentTables() {
    String common = "x".repeat(70);
    String a = TableNaming.tableName(new Namespace("db", common + "a"));
    String b = TableNaming.tableName(new Namespace("db", common + "b"));
    assertNotEquals(a, b);
    assertEquals(a.substring(0, 50), b.substring(0, 50));
    // one exactly at the limit and one just over it
    String at = TableNaming.tableName(new Namespace("d", "y".repeat(61)));
    String over = TableNaming.tableName(new Namespace("d", "y".repeat(62)));
    assertNotEquals(at, over);
  }

  @Test
  void shorteningNeverSplitsACharacter() {
    String name = TableNaming.tableName(new Namespace("db", "é🙂".repeat(40)));
    assertTrue(bytes(name) <= 63, name);
    assertEquals(name, new String(name.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
    assertTrue(name.chars().noneMatch(c -> c == 0xFFFD));
    for (int i = 0; i < name.length(); i++) {
      if (Character.isHighSurrogate(name.charAt(i))) {
        assertTrue(Character.isLowSurrogate(name.charAt(i + 1)), name);
      }
    }
  }

  @Test
  void quotingDoublesQuotes() {
    assertEquals("\"a\"\"b\"", TableNaming.quote("a\"b"));
    assertEquals("\"s\".\"t.u\"", TableNaming.qualified("s", "t.u"));
    assertThrows(IllegalArgumentException.class, () -> TableNaming.quote("a\0b"));
  }

  @Test
  void planRefusesTwoCollectionsForOneTableNamingBoth() {
    Namespace a = new Namespace("db", "first");
    Namespace b = new Namespace("db2", "second");
    TableNameCollisionException e =
        assertThrows(
            TableNameCollisionException.class,
            () -> PostgresDestination.plan("public", List.of(a, b), ns -> "same"));
    assertTrue(e.getMessage().contains("db.first"), e.getMessage());
    assertTrue(e.getMessage().contains("db2.second"), e.getMessage());
    // the same collection twice is not a collision
    assertEquals(1, PostgresDestination.plan("public", List.of(a, a), TableNaming.instance()).size());
  }

  @Test
  void tooLongExplicitNamesAreRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new DestinationTable(new Namespace("d", "c"), "public", "z".repeat(64)));
  }
}
