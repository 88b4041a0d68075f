package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class PostgresUrlsTest {

  private static final String PEER = "the connection string of PostgreSQL peer 'warehouse'";

  @Test
  void acceptsJdbcUrlsAndLibpqUris() {
    PGSimpleDataSource jdbc = PostgresUrls.dataSource(PEER, "jdbc:postgresql://pg1:5432/warehouse?user=cdc");
    assertEquals("warehouse", jdbc.getDatabaseName());
    assertEquals("cdc", jdbc.getUser());

    PGSimpleDataSource libpq = PostgresUrls.dataSource(PEER, "postgresql://cdc:p%40ss@pg1:5433/warehouse?sslmode=require");
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
        () -> PostgresUrls.dataSource(PEER, "mysql://root:hunter2@db/x"));
    assertFalse(error.getMessage().contains("hunter2"), error.getMessage());
  }

  @Test
  void aPlusInAUriPasswordIsAPlusAsLibpqReadsIt() {
    assertEquals("a+b c", PostgresUrls.dataSource(PEER, "postgresql://cdc:a+b%20c@pg1/warehouse").getPassword());
  }

  @Test
  void aUriPasswordMayHoldSlashesAtSignsColonsAndSpacesAsWritten() {
    PGSimpleDataSource libpq = PostgresUrls.dataSource(PEER, "postgresql://cdc:TOP/SE@C:R ET%3F@pg1:5433/warehouse?ssl=true");
    assertEquals("cdc", libpq.getUser());
    assertEquals("TOP/SE@C:R ET?", libpq.getPassword());
    assertEquals("pg1", libpq.getServerNames()[0]);
    assertEquals(5433, libpq.getPortNumbers()[0]);
    assertEquals("warehouse", libpq.getDatabaseName());
  }

  @Test
  void aUriThatDoesNotParseIsRefusedNamingWhatItIsWithoutEchoingItsPassword() {
    InvalidMirrorConfigurationException error = assertThrows(InvalidMirrorConfigurationException.class,
        () -> PostgresUrls.dataSource(PEER, "postgresql://cdc:TOP/s3cr3t@pg 1/warehouse"));
    assertFalse(error.getMessage().contains("s3cr3t"), error.getMessage());
    assertTrue(error.getMessage().startsWith(PEER + " postgresql://cdc:***@"), error.getMessage());
    assertTrue(error.getMessage().contains("postgresql://U:P@HOST:PORT/DB"), error.getMessage());
  }
}
