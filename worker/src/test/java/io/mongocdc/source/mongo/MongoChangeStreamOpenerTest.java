package io.mongocdc.source.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** The mirror's options map onto the driver's change stream options as documented. */
class MongoChangeStreamOpenerTest {

  private static final ResumeToken TOKEN = ResumeToken.of("8265A1B2C3000000042B042C0100296E04");

  /** A ChangeStreamIterable that records its fluent calls. */
  @SuppressWarnings("unchecked")
  private static ChangeStreamIterable<BsonDocument> recording(List<String> calls) {
    return (ChangeStreamIterable<BsonDocument>) Proxy.newProxyInstance(
        ChangeStreamIterable.class.getClassLoader(), new Class<?>[] {ChangeStreamIterable.class},
        (proxy, method, args) -> {
          calls.add(method.getName() + (args == null ? "()" : Arrays.toString(args)));
          return proxy;
        });
  }

  @Test
  void resumesAfterATokenWithTheMirrorsOptions() {
    MongoSourceSettings settings = new MongoSourceSettings("shop", List.of("shop.orders"), Set.of(), 500, Duration.ofMillis(250), false, PreImageMode.OFF);
    List<String> calls = new ArrayList<>();

    new MongoChangeStreamOpener(p -> recording(calls), settings)
        .configure(recording(calls), StreamPosition.after(TOKEN));

    assertEquals(List.of(
        "fullDocument[" + FullDocument.UPDATE_LOOKUP + "]",
        "maxAwaitTime[250, " + TimeUnit.MILLISECONDS + "]",
        "batchSize[500]",
        "startAfter[" + TOKEN.toDocument() + "]"), calls);
  }

  @Test
  void preImagesAreAskedForOnlyWhenOn() {
    MongoSourceSettings settings = new MongoSourceSettings("shop", List.of("shop.orders"), Set.of(), 0, Duration.ofMillis(250), false, PreImageMode.REQUIRED);
    List<String> calls = new ArrayList<>();

    new MongoChangeStreamOpener(p -> recording(calls), settings)
        .configure(recording(calls), StreamPosition.after(TOKEN));

    assertEquals(List.of(
        "fullDocument[" + FullDocument.UPDATE_LOOKUP + "]",
        "maxAwaitTime[250, " + TimeUnit.MILLISECONDS + "]",
        "fullDocumentBeforeChange[" + FullDocumentBeforeChange.REQUIRED + "]",
        "startAfter[" + TOKEN.toDocument() + "]"), calls);
  }

  @Test
  void aNewMirrorStartsAtAnOperationTimeWithDefaults() {
    List<String> calls = new ArrayList<>();
    BsonTimestamp time = new BsonTimestamp(1_700_000_000, 3);

    new MongoChangeStreamOpener(p -> recording(calls), MongoSourceSettings.of(null, List.of("a.b")))
        .configure(recording(calls), StreamPosition.atOperationTime(time));

    assertEquals(List.of(
        "fullDocument[" + FullDocument.UPDATE_LOOKUP + "]",
        "maxAwaitTime[1000, " + TimeUnit.MILLISECONDS + "]",
        "startAtOperationTime[" + time + "]"), calls);
  }
}
