package io.mongocdc.suggest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ColumnNamesTest {

  @Test
  void derivesLowerSnakeCaseAsciiNames() {
    assertEquals("order_number", ColumnNames.derive("orderNumber"));
    assertEquals("customer_address_zip", ColumnNames.derive("customer.address.zip"));
    assertEquals("url_path", ColumnNames.derive("URLPath"));
    assertEquals("user_id2", ColumnNames.derive("userId2"));
    assertEquals("ete_prix", ColumnNames.derive("été.prix"), "accents dropped");
    assertEquals("first_name", ColumnNames.derive("first name"));
    assertEquals("a_b", ColumnNames.derive("a--b"), "runs of separators are one _");
    assertEquals("meta", ColumnNames.derive("_meta"), "no leading _");
    assertEquals("c_1st", ColumnNames.derive("1st"), "never a leading digit");
    assertEquals("column", ColumnNames.derive("東京"), "nothing ASCII left");
    assertEquals("snake_case", ColumnNames.derive("snake_case"));
  }

  @Test
  void namesFitPostgresIdentifiersAndAreValidUnquoted() {
    String longPath = "a".repeat(40) + "." + "b".repeat(40);
    String name = ColumnNames.derive(longPath);
    assertEquals(ColumnNames.MAX_LENGTH, name.length());
    ColumnNames names = new ColumnNames(Set.of());
    String first = names.nameFor(longPath);
    String second = names.nameFor(longPath);
    assertEquals(name, first);
    assertEquals(ColumnNames.MAX_LENGTH, second.length());
    assertTrue(second.endsWith("_2"), second);
    for (String path : new String[] {"A.B", "x y", "Zoë's", "$x", "doc", "ÄÖÜ.ß"}) {
      assertTrue(names.nameFor(path).matches("[a-z_][a-z0-9_]{0,62}"), path);
    }
  }

  @Test
  void reservedAndTakenNamesGetASuffix() {
    ColumnNames names = new ColumnNames(Set.of("_id", "doc", "_Position"));
    assertEquals("doc_2", names.nameFor("doc"));
    assertEquals("doc_3", names.nameFor("Doc"));
    assertEquals("doc_2_2", names.nameFor("doc_2"), "a name handed out already is taken too");
    assertEquals("id", names.nameFor("_id"));
    assertEquals("id_2", names.nameFor("id"));
  }
}
