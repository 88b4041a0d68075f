package io.mongocdc.source.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** The mirror's settings as the MongoDB source reads them. */
class MongoMirrorSourceFactoryTest {

  private static MirrorConfig mirror(MirrorSettings settings) {
    return new MirrorConfig("orders", "orders-mongo", "warehouse-pg", "shop", List.of("orders", "items"), "public",
        settings);
  }

  @Test
  void splitLargeEventsIsOffByDefaultAndAnEditTurnsItOnInThePipeline() {
    MongoSourceSettings off = MongoMirrorSourceFactory.settings(mirror(MirrorSettings.defaults()));
    assertFalse(off.splitLargeEvents());
    assertFalse(stages(off).contains("$changeStreamSplitLargeEvent"));

    MirrorSettings edited = MirrorSettings.defaults().apply(EditRequest.fromJson(Map.of("splitLargeEvents", true)));
    MongoSourceSettings on = MongoMirrorSourceFactory.settings(mirror(edited));
    assertTrue(on.splitLargeEvents());
    assertTrue(stages(on).contains("$changeStreamSplitLargeEvent"), stages(on).toString());
  }

  @Test
  void collectionsAndExcludedOperationsComeFromTheMirror() {
    MirrorSettings settings = MirrorSettings.defaults().apply(
        EditRequest.fromJson(Map.of("excludedOperations", List.of("delete"))));
    MongoSourceSettings source = MongoMirrorSourceFactory.settings(mirror(settings));
    assertEquals(List.of("shop.orders", "shop.items"), source.collections());
    assertEquals(Set.of("delete"), Set.copyOf(source.excludedOperations()));
  }

  @Test
  void preImagesAreOffByDefaultAndAnEditTurnsThemOn() {
    assertEquals(PreImageMode.OFF,
        MongoMirrorSourceFactory.settings(mirror(MirrorSettings.defaults())).fullDocumentBeforeChange());
    MirrorSettings edited = MirrorSettings.defaults().apply(
        EditRequest.fromJson(Map.of("fullDocumentBeforeChange", "whenAvailable")));
    assertEquals(PreImageMode.WHEN_AVAILABLE, MongoMirrorSourceFactory.settings(mirror(edited)).fullDocumentBeforeChange());
  }

  private static List<String> stages(MongoSourceSettings settings) {
    return ChangeStreamPipeline.build(settings).stream().map(BsonDocument::getFirstKey).toList();
  }
}
