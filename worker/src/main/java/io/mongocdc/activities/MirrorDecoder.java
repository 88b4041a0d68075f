package io.mongocdc.activities;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.workflows.model.ChangeHistorySettings;
import io.mongocdc.workflows.model.MirrorConfig;

/**
 * The decoder of a mirror's change events. One place, because a quarantined event replayed
 * later must be decoded exactly as a batch would have decoded it.
 */
final class MirrorDecoder {

  private MirrorDecoder() {}

  static ChangeEventDecoder of(MirrorConfig mirror, MirrorDestination destination) {
    ChangeHistorySettings history = mirror.settings().history();
    return new ChangeEventDecoder(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(),
        destination.tableResolver(mirror),
        ns -> ns.database().equals(mirror.sourceDatabase()) && history.keepsHistory(ns.collection()));
  }
}
