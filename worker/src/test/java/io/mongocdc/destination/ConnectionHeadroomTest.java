package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.testing.EmbeddedPostgresSupport;
import org.junit.jupiter.api.Test;

/** What a worker says of a destination server's room for its pool, with the numbers. */
class ConnectionHeadroomTest {

  @Test
  void aPoolThatFitsSaysHowManyWorkersLikeItFit() {
    ConnectionHeadroom.Figures figures = new ConnectionHeadroom.Figures(100, 3, 21);
    assertTrue(ConnectionHeadroom.fits(figures, 8));
    assertEquals("destination peer 'warehouse': this worker may open 8 connections; the server has 76 free"
        + " (max_connections 100, 3 reserved for superusers, 21 open now), room for 9 worker(s) like this one",
        ConnectionHeadroom.verdict("warehouse", figures, 8));
  }

  @Test
  void aPoolThatDoesNotFitIsAWarningThatSaysWhatToChange() {
    ConnectionHeadroom.Figures figures = new ConnectionHeadroom.Figures(100, 3, 90);
    assertFalse(ConnectionHeadroom.fits(figures, 32));
    assertEquals("destination peer 'warehouse': this worker may open 32 connections but the server has 7 free"
        + " (max_connections 100, 3 reserved for superusers, 90 open now); batches will fail to connect when they"
        + " all run: lower --destination-connections on its workers or raise max_connections",
        ConnectionHeadroom.verdict("warehouse", figures, 32));
  }

  @Test
  void theFiguresComeFromTheServer() throws Exception {
    ConnectionHeadroom.Figures figures = ConnectionHeadroom.read(EmbeddedPostgresSupport.newDatabase("headroom"));
    assertTrue(figures.maxConnections() >= 10, figures.toString());
    assertTrue(figures.open() >= 1, "the connection that read them is open: " + figures);
    assertEquals(figures.maxConnections() - figures.superuserReserved() - figures.open(), figures.free());
  }
}
