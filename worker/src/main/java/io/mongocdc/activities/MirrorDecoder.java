package io.mongocdc.activities;

import io.mongocdc.decode.MirrorColumns;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.decode.MirrorHistory;
import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.UnknownEventPolicy;
import java.util.Set;

/**
 * The decoder of a mirror's change events. One place, because a quarantined event replayed
 * later must be decoded exactly as a batch would have decoded it.
 */
final class MirrorDecoder {

  private MirrorDecoder() {}

  static ChangeEventDecoder of(MirrorConfig mirror, MirrorDestination destination) {
    TranscodingJsonRenderer renderer = TranscodingJsonRenderer.relaxed();
    Set<String> excluded = Set.copyOf(mirror.settings().excludedOperations());
    boolean skipsUnknown = mirror.settings().unknownEventPolicy() == UnknownEventPolicy.SKIP;
    return new ChangeEventDecoder(renderer, new IdKeyRenderer(), destination.tableResolver(mirror),
        MirrorHistory.keepsHistory(mirror), MirrorColumns.of(mirror, renderer))
        .skippingTypes(type -> skipsUnknown || excluded.contains(type));
  }
}
