package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class PostgresUrlsTest {

  @Test
  void acceptsJdbcUrlsAndLibpqUris() {
    PGSimpleDataSource jdbc = PostgresUrls.dataSource("jdbc:postgresql://pg1:5432/warehouse?user=cdc");
    assertEquals("warehouse", jdbc.getDatabaseName());
    assertEquals("cdc", jdbc.getUser());

    PGSimpleDataSource libpq = PostgresUrls.dataSource("postgresql://cdc:p%40ss@pg1:5433/warehouse?sslmode=require");
    assertEquals("pg1", libpq.getServerNames()[0]);
    assertEquals(5433, libpq.getPortNumbers()[0]);
    assertEquals("warehouse", libpq.getDatabaseName());
    assertEquals("cdc", libpq.getUser());
    assertEquals("p@ss", libpq.getPassword());
    assertEquals("require", libpq.getSslMode());
  }

  @Test
  void refusesOtherSchemesWithoutShowingThePassword() {
    InvalidMirrorConfigurationException error = assertThrows(InvalidMirrorConfigurationException.class,
        () -> PostgresUrls.dataSource("mysql://root:hunter2@db/x"));
    assertFalse(error.getMessage().contains("hunter2"), error.getMessage());
  }

  @Test
  void aPlusInAUriPasswordIsAPlusAsLibpqReadsIt() {
    assertEquals("a+b c", PostgresUrls.dataSource("postgresql://cdc:a+b%20c@pg1/warehouse").getPassword());
  }

  @Test
  void aUriThatDoesNotParseIsRefusedWithoutEchoingItsPassword() {
    InvalidMirrorConfigurationException error = assertThrows(InvalidMirrorConfigurationException.class,
        () -> PostgresUrls.dataSource("postgresql://cdc:my s3cr3t@pg1/warehouse"));
    assertFalse(error.getMessage().contains("s3cr3t"), error.getMessage());
    assertTrue(error.getMessage().contains("percent-encode"), error.getMessage());
  }
}
