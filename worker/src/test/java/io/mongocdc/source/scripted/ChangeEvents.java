package io.mongocdc.source.scripted;

import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.devtools.generator.ResumeTokens;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Makes change events in the exact shape a MongoDB 6.0+ change stream returns them ({@code _id}
 * with a real-layout resume token, {@code operationType}, {@code clusterTime}, {@code wallTime},
 * {@code ns}, {@code documentKey}, {@code fullDocument}, {@code updateDescription}, and
 * {@code lsid}/{@code txnNumber} inside transactions), encoded as raw BSON.
 *
 * <p>Each event advances a cluster time, so the tokens are in stream order. Used by tests and
 * the benchmarks; the development load generator writes events of the same shape straight as
 * bytes ({@code generator.ChangeEventWriter}, tested against this class). Not thread-safe.
 */
public final class ChangeEvents {

  private final Map<Namespace, UUID> collectionUuids = new HashMap<>();
  private final InstantSource clock;
  private int seconds;
  private int increment;
  private long wallClockMillis;
  private Transaction transaction;

  /** Starts a synthetic cluster clock at {@code epochSeconds}: 1000 events a second. */
  public ChangeEvents(int epochSeconds) {
    this.clock = null;
    this.seconds = epochSeconds;
    this.wallClockMillis = epochSeconds * 1000L;
  }

  /** Follows {@code clock}: events carry the time they are made at, as a live server's do. */
  public ChangeEvents(InstantSource clock) {
    this.clock = clock;
    this.seconds = (int) clock.instant().getEpochSecond();
    this.wallClockMillis = clock.millis();
  }

  public ChangeEvents() {
    this(1_700_000_000);
  }

  public RawBsonDocument insert(Namespace ns, BsonDocument document) {
    BsonValue id = requireId(document);
    return dataEvent("insert", ns, id, document, null);
  }

  /** An update with an updateLookup post-image ({@code null} if the lookup found nothing). */
  public RawBsonDocument update(Namespace ns, BsonValue id, BsonDocument postImage, BsonDocument updatedFields) {
    BsonDocument description = new BsonDocument()
        .append("updatedFields", updatedFields == null ? new BsonDocument() : updatedFields)
        .append("removedFields", new BsonArray())
        .append("truncatedArrays", new BsonArray());
    return dataEvent("update", ns, id, postImage == null ? BsonNull.VALUE : postImage, description);
  }

  /**
   * An update with a full {@code updateDescription}: fields set, fields removed, and arrays
   * truncated ({@code {field, newSize}} documents).
   */
  public RawBsonDocument update(Namespace ns, BsonValue id, BsonDocument postImage, BsonDocument updatedFields,
      List<String> removedFields, BsonArray truncatedArrays) {
    BsonArray removed = new BsonArray();
    removedFields.forEach(field -> removed.add(new BsonString(field)));
    BsonDocument description = new BsonDocument()
        .append("updatedFields", updatedFields)
        .append("removedFields", removed)
        .append("truncatedArrays", truncatedArrays);
    return dataEvent("update", ns, id, postImage == null ? BsonNull.VALUE : postImage, description);
  }

  /**
   * {@code event} as a stream with {@code fullDocumentBeforeChange} returns it: with the pre-image
   * last, or {@code null} where the server had none ({@code whenAvailable}).
   */
  public static RawBsonDocument withPreImage(RawBsonDocument event, BsonDocument preImage) {
    BsonDocument document = event.decode(new BsonDocumentCodec());
    document.append("fullDocumentBeforeChange", preImage == null ? BsonNull.VALUE : preImage);
    return toRaw(document);
  }

  public RawBsonDocument replace(Namespace ns, BsonDocument document) {
    return dataEvent("replace", ns, requireId(document), document, null);
  }

  public RawBsonDocument delete(Namespace ns, BsonValue id) {
    return dataEvent("delete", ns, id, null, null);
  }

  public RawBsonDocument drop(Namespace ns) {
    return controlEvent("drop", ns, null);
  }

  public RawBsonDocument rename(Namespace from, Namespace to) {
    return controlEvent("rename", from, to);
  }

  public RawBsonDocument dropDatabase(String database) {
    return controlEvent("dropDatabase", new Namespace(database, null), null);
  }

  public RawBsonDocument invalidate() {
    return controlEvent("invalidate", null, null);
  }

  /** An event of an arbitrary {@code operationType}, with a namespace, for unknown-type tests. */
  public RawBsonDocument ofType(String operationType, Namespace ns) {
    return controlEvent(operationType, ns, null);
  }

  /**
   * Starts a multi-document transaction: until {@link #commitTransaction()}, events share one
   * cluster time and carry {@code lsid}, {@code txnNumber} and increasing operation indexes.
   */
  public void beginTransaction(long txnNumber) {
    tick();
    transaction = new Transaction(txnNumber, UUID.randomUUID());
  }

  public void commitTransaction() {
    transaction = null;
  }

  /** A post-batch resume token later than every event made so far. */
  public ResumeToken highWaterMark() {
    tick();
    return ResumeTokens.highWaterMark(new BsonTimestamp(seconds, increment));
  }

  /** The cluster time the next event will carry, for {@code startAtOperationTime} tests. */
  public BsonTimestamp currentClusterTime() {
    return new BsonTimestamp(seconds, increment);
  }

  private RawBsonDocument dataEvent(
      String operationType, Namespace ns, BsonValue id, BsonValue fullDocument, BsonDocument updateDescription) {
    int txnOpIndex = transaction == null ? 0 : transaction.nextOpIndex();
    if (transaction == null) {
      tick();
    }
    BsonTimestamp clusterTime = new BsonTimestamp(seconds, increment);
    ResumeToken token = ResumeTokens.event(clusterTime, txnOpIndex, uuidOf(ns), id);
    BsonDocument event = new BsonDocument()
        .append("_id", token.toDocument())
        .append("operationType", new BsonString(operationType))
        .append("clusterTime", clusterTime)
        .append("wallTime", new BsonDateTime(wallClockMillis));
    if (fullDocument != null) {
      event.append("fullDocument", fullDocument);
    }
    event.append("ns", nsDocument(ns))
        .append("documentKey", new BsonDocument("_id", id));
    if (updateDescription != null) {
      event.append("updateDescription", updateDescription);
    }
    if (transaction != null) {
      event.append("lsid", new BsonDocument("id", new BsonString(transaction.sessionId.toString())))
          .append("txnNumber", new BsonInt64(transaction.txnNumber));
    }
    return toRaw(event);
  }

  private RawBsonDocument controlEvent(String operationType, Namespace ns, Namespace to) {
    tick();
    BsonTimestamp clusterTime = new BsonTimestamp(seconds, increment);
    UUID uuid = ns == null ? new UUID(0, 0) : uuidOf(ns);
    ResumeToken token = ResumeTokens.control(clusterTime, uuid, operationType);
    BsonDocument event = new BsonDocument()
        .append("_id", token.toDocument())
        .append("operationType", new BsonString(operationType))
        .append("clusterTime", clusterTime)
        .append("wallTime", new BsonDateTime(wallClockMillis));
    if (ns != null) {
      event.append("ns", nsDocument(ns));
    }
    if (to != null) {
      event.append("to", nsDocument(to));
    }
    return toRaw(event);
  }

  private void tick() {
    if (clock != null) {
      long now = clock.millis();
      int nowSeconds = (int) (now / 1000);
      if (nowSeconds > seconds) {
        seconds = nowSeconds;
        increment = 0;
      }
      increment++;
      wallClockMillis = Math.max(wallClockMillis, now);
      return;
    }
    increment++;
    if (increment > 1000) {
      increment = 1;
      seconds++;
      wallClockMillis = seconds * 1000L;
    } else {
      wallClockMillis++;
    }
  }

  private UUID uuidOf(Namespace ns) {
    return collectionUuids.computeIfAbsent(
        ns, n -> UUID.nameUUIDFromBytes(n.fullName().getBytes(StandardCharsets.UTF_8)));
  }

  private static BsonDocument nsDocument(Namespace ns) {
    BsonDocument doc = new BsonDocument("db", new BsonString(ns.database()));
    if (ns.collection() != null) {
      doc.append("coll", new BsonString(ns.collection()));
    }
    return doc;
  }

  private static BsonValue requireId(BsonDocument document) {
    BsonValue id = document.get("_id");
    if (id == null) {
      throw new IllegalArgumentException("document has no _id");
    }
    return id;
  }

  private static RawBsonDocument toRaw(BsonDocument event) {
    return new RawBsonDocument(event, new BsonDocumentCodec());
  }

  private static final class Transaction {
    final long txnNumber;
    final UUID sessionId;
    int opIndex;

    Transaction(long txnNumber, UUID sessionId) {
      this.txnNumber = txnNumber;
      this.sessionId = sessionId;
    }

    int nextOpIndex() {
      return opIndex++;
    }
  }
}
