package io.mongocdc.workflows;

import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.StartPointRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** The steps that set a mirror up, once, before its first batch. Each is idempotent. */
@ActivityInterface
public interface SetupMirrorActivity {

  /** Checks the configuration, that both peers are known and reachable, and the credentials. */
  @ActivityMethod(name = ActivityNames.VALIDATE_MIRROR)
  void validateMirror(MirrorConfig mirror);

  /** Creates the destination tables if missing. @return the tables */
  @ActivityMethod(name = ActivityNames.CREATE_DESTINATION_TABLES)
  List<String> createDestinationTables(MirrorConfig mirror);

  /** Registers the mirror in the catalog. @return its committed checkpoint if it had one, else null */
  @ActivityMethod(name = ActivityNames.REGISTER_MIRROR)
  Checkpoint registerMirror(MirrorConfig mirror);

  /** The batch that committed the mirror's checkpoint in the catalog; 0 if it has none. */
  @ActivityMethod(name = ActivityNames.COMMITTED_BATCH_ID)
  long committedBatchId(MirrorConfig mirror);

  /**
   * What the rows the mirror wrote hold under its field rules, as its workflow last recorded it in
   * the catalog (with each rewrite slice's progress); null if the catalog has no record of it.
   */
  @ActivityMethod(name = ActivityNames.FIELD_RULES_WRITTEN)
  FieldRulesWritten fieldRulesWritten(MirrorConfig mirror);

  /** The source's current operation time: where a new mirror starts. */
  @ActivityMethod(name = ActivityNames.TAKE_STARTING_POINT)
  Checkpoint takeStartingPoint(MirrorConfig mirror);

  /**
   * Checks a new mirror's chosen start point against the source's history: refused (as an
   * invalid configuration, naming the oldest point the history holds) when the history no longer
   * holds it or it is later than the source's time now.
   *
   * @return the start as the mirror's first checkpoint, a token's cluster time read from it
   */
  @ActivityMethod(name = ActivityNames.CHECK_START_POINT)
  Checkpoint checkStartPoint(StartPointRequest request);
}
