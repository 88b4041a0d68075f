package io.mongocdc.activities;

import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.FailureTypes;
import io.mongocdc.workflows.SetupMirrorActivity;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.StartPointRequest;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Objects;

/** Sets a mirror up through the ports; what it throws is classified by {@link ActivityFailureInterceptor}. */
public final class SetupMirrorActivityImpl implements SetupMirrorActivity {

  private final PeerRegistry peers;
  private final MirrorRedactions redactions;
  private final MirrorSourceFactory source;
  private final MirrorDestination destination;
  private final CheckpointCatalog catalog;

  public SetupMirrorActivityImpl(PeerRegistry peers, MirrorSourceFactory source, MirrorDestination destination,
      CheckpointCatalog catalog, MirrorRedactions redactions) {
    this.redactions = Objects.requireNonNull(redactions, "redactions");
    this.peers = Objects.requireNonNull(peers, "peers");
    this.source = Objects.requireNonNull(source, "source");
    this.destination = Objects.requireNonNull(destination, "destination");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  @Override
  public void validateMirror(MirrorConfig mirror) {
    mirror.requireValid();
    peers.resolve(mirror.sourcePeer());
    peers.resolve(mirror.destinationPeer());
    mirror.settings().snapshot().filters().forEach(SnapshotFilter::parse);
    source.validate(mirror);
    requireRuledCollectionsExist(mirror);
    destination.validate(mirror);
  }

  /**
   * A mirror of every collection names no collections of its own, so a field rule's collection is
   * checked here, against the source's: a rule of a collection that is not there protects nothing.
   * (A mirror that lists its collections is checked with its configuration.) A source that cannot
   * list its collections is not checked.
   */
  private void requireRuledCollectionsExist(MirrorConfig mirror) {
    if (!mirror.collections().isEmpty() || mirror.settings().fieldRules().isEmpty()) {
      return;
    }
    SnapshotSource database;
    try {
      database = source.snapshotSource(mirror);
    } catch (InvalidMirrorConfigurationException cannotRead) {
      return;
    }
    List<String> problems;
    try (database) {
      problems = mirror.settings().fieldRules().collectionProblems(mirror.sourceDatabase(), database.collectionNames());
    }
    if (!problems.isEmpty()) {
      throw new InvalidMirrorConfigurationException(String.join("; ", problems));
    }
  }

  @Override
  public List<String> createDestinationTables(MirrorConfig mirror) {
    // A mirror whose rules this worker cannot apply gets no table.
    redactions.of(mirror);
    return destination.createTables(mirror);
  }

  @Override
  public Checkpoint registerMirror(MirrorConfig mirror) {
    return catalog.register(mirror).map(Checkpoints::of).orElse(null);
  }

  @Override
  public long committedBatchId(MirrorConfig mirror) {
    return catalog.committedBatchId(mirror.name());
  }

  @Override
  public FieldRulesWritten fieldRulesWritten(MirrorConfig mirror) {
    return catalog.fieldRulesWritten(mirror.name()).orElse(null);
  }

  @Override
  public Checkpoint checkStartPoint(StartPointRequest request) {
    StreamPosition start = Checkpoints.toPosition(request.start());
    try {
      source.requireHistoryHolds(request.mirror(), start);
    } catch (InvalidMirrorConfigurationException refused) {
      // The refusal ends the workflow: its reason alone, without the classifier's "then resume" advice.
      throw ApplicationFailure.newNonRetryableFailure(Redaction.redact(refused.getMessage()),
          FailureTypes.INVALID_CONFIGURATION);
    }
    return Checkpoints.of(start);
  }

  @Override
  public Checkpoint takeStartingPoint(MirrorConfig mirror) {
    return Checkpoints.of(source.currentPosition(mirror));
  }
}
