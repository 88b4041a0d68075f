package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.ConnectionLease;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/** When a batch that holds destination connections others wait for gives them up. */
class ConnectionTurnTest {

  private static final long NOW = 1_800_000_000_000L;
  private static final long MS = 1_000_000L;

  private final AtomicBoolean othersWait = new AtomicBoolean(true);
  private final ConnectionLease lease = new ConnectionLease() {
    @Override
    public void close() {}

    @Override
    public boolean othersWait() {
      return othersWait.get();
    }
  };

  private ConnectionTurn turn() {
    return new ConnectionTurn(lease, Duration.ofSeconds(10), () -> NOW);
  }

  private static RawBsonDocument writtenAt(long millis) {
    return RawBsonDocument.parse(new BsonDocument("operationType", new org.bson.BsonString("insert"))
        .append("wallTime", new BsonDateTime(millis)).toJson());
  }

  @Test
  void nobodyWaitingMeansTheTurnNeverEnds() {
    othersWait.set(false);
    ConnectionTurn turn = turn();
    assertFalse(turn.over(60_000 * MS, null));
    assertFalse(turn.over(60_000 * MS, writtenAt(NOW)));
  }

  @Test
  void nothingToReadEndsTheTurnAtOnce() {
    assertTrue(turn().over(0, null));
  }

  @Test
  void aBatchAtTheLiveTailGivesWayAfterHalfASecond() {
    ConnectionTurn turn = turn();
    assertFalse(turn.over(100 * MS, writtenAt(NOW - 200)), "too soon: its fixed costs would dominate");
    assertTrue(turn.over(600 * MS, writtenAt(NOW - 200)));
  }

  @Test
  void aBatchWithABacklogKeepsItsTurnUntilTheTurnEnds() {
    ConnectionTurn turn = turn();
    assertFalse(turn.over(600 * MS, writtenAt(NOW - 30_000)), "30 s behind: it drains its backlog");
    assertFalse(turn.over(9_000 * MS, writtenAt(NOW - 30_000)));
    assertTrue(turn.over(10_000 * MS, writtenAt(NOW - 30_000)));
  }

  @Test
  void anEventWithoutWallTimeIsTimedByItsClusterTime() {
    RawBsonDocument recent = RawBsonDocument.parse(new BsonDocument("clusterTime",
        new BsonTimestamp((int) (NOW / 1000), 1)).toJson());
    RawBsonDocument old = RawBsonDocument.parse(new BsonDocument("clusterTime",
        new BsonTimestamp((int) (NOW / 1000) - 60, 1)).toJson());
    assertTrue(ConnectionTurn.atLiveTail(recent, NOW));
    assertFalse(ConnectionTurn.atLiveTail(old, NOW));
    assertFalse(ConnectionTurn.atLiveTail(RawBsonDocument.parse("{}"), NOW), "no time: not known to be at the tail");
  }
}
