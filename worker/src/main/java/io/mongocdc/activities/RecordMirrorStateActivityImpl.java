package io.mongocdc.activities;

import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.workflows.RecordMirrorStateActivity;
import io.mongocdc.workflows.model.MirrorStateChange;
import java.util.Objects;

/** Records through the {@link CheckpointCatalog}, which applies a change only if it is newer. */
public final class RecordMirrorStateActivityImpl implements RecordMirrorStateActivity {

  private final CheckpointCatalog catalog;

  public RecordMirrorStateActivityImpl(CheckpointCatalog catalog) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  @Override
  public void recordMirrorState(MirrorStateChange change) {
    catalog.recordState(change);
  }
}
