package io.mongocdc.decode;

import io.mongocdc.workflows.model.ChangeHistorySettings;
import io.mongocdc.workflows.model.MirrorConfig;
import java.util.function.Predicate;

/** Which of a mirror's namespaces keep a change history: one rule for the decoder and the destination. */
public final class MirrorHistory {

  private MirrorHistory() {}

  /** Whether a namespace's table keeps a history, by the mirror's {@code history} setting. */
  public static Predicate<Namespace> keepsHistory(MirrorConfig mirror) {
    ChangeHistorySettings history = mirror.settings().history();
    if (history.collections().isEmpty()) {
      return ns -> false;
    }
    return ns -> ns.database().equals(mirror.sourceDatabase()) && ns.collection() != null
        && history.keepsHistory(ns.collection());
  }
}
