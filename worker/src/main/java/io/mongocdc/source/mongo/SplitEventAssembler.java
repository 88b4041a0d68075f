package io.mongocdc.source.mongo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Reassembles events that {@code $changeStreamSplitLargeEvent} cut into fragments. Each fragment
 * carries {@code splitEvent: {fragment: i, of: n}} and a share of the event's top-level fields;
 * the whole event is their union, identified by the last fragment's token (resuming after it
 * continues after the whole event).
 */
final class SplitEventAssembler {

  private final List<RawBsonDocument> fragments = new ArrayList<>();

  /** The whole event if {@code event} completes one (or is not split); null while fragments are pending. */
  RawBsonDocument offer(RawBsonDocument event) {
    BsonValue split = event.get("splitEvent");
    if (split == null || !split.isDocument()) {
      if (!fragments.isEmpty()) {
        throw new IllegalStateException("change stream sent an unsplit event while " + fragments.size()
            + " fragment(s) of a split event were pending");
      }
      return event;
    }
    int fragment = split.asDocument().getInt32("fragment").getValue();
    int of = split.asDocument().getInt32("of").getValue();
    if (fragment != fragments.size() + 1) {
      throw new IllegalStateException("split event fragment " + fragment + " of " + of + " arrived after "
          + fragments.size() + " fragment(s)");
    }
    fragments.add(event);
    if (fragment < of) {
      return null;
    }
    BsonDocument whole = new BsonDocument();
    for (RawBsonDocument part : fragments) {
      for (Map.Entry<String, BsonValue> field : part.entrySet()) {
        if (!field.getKey().equals("splitEvent")) {
          whole.put(field.getKey(), field.getValue());
        }
      }
    }
    // _id must come first, as the reader looks for it there cheaply; the last fragment's token wins.
    BsonDocument ordered = new BsonDocument("_id", fragments.get(fragments.size() - 1).get("_id"));
    whole.forEach((key, value) -> {
      if (!key.equals("_id")) {
        ordered.put(key, value);
      }
    });
    fragments.clear();
    return new RawBsonDocument(ordered, new BsonDocumentCodec());
  }

  boolean inProgress() {
    return !fragments.isEmpty();
  }
}
