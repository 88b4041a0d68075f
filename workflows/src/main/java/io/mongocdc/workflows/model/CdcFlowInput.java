package io.mongocdc.workflows.model;

/**
 * The input of a mirror's workflow run: a new mirror's configuration, or the state carried over
 * by continue-as-new.
 *
 * @param config the mirror, for a new mirror; ignored when {@code carried} is present
 * @param carried the state of the previous run, or null for a new mirror
 * @param resync for a mirror whose change history is lost ({@code mongo-cdc mirror resync}):
 *     take a new starting point even though the catalog holds a checkpoint, copy every
 *     collection again into its existing tables, and delete the rows the copy did not see before
 *     streaming from there; null (older inputs) means no
 * @param startAt for a new mirror, the point its stream starts from instead of the source's time
 *     now: an operation time ({@code clusterTimeSeconds}, {@code clusterTimeIncrement}), inclusive,
 *     or after a resume token ({@code resumeToken}, whose cluster time the worker reads from it).
 *     The worker refuses it before anything is created unless the source's history holds it. It
 *     wins over a checkpoint the catalog holds for the mirror. Null: the source's time now
 */
public record CdcFlowInput(MirrorConfig config, CarriedState carried, Boolean resync, Checkpoint startAt) {

  public CdcFlowInput {
    resync = Boolean.TRUE.equals(resync);
  }

  public static CdcFlowInput newMirror(MirrorConfig config) {
    return new CdcFlowInput(config, null, false, null);
  }

  /** A new mirror whose stream starts at {@code startAt} (see the parameter above). */
  public static CdcFlowInput newMirror(MirrorConfig config, Checkpoint startAt) {
    return new CdcFlowInput(config, null, false, startAt);
  }

  /** A mirror started again from a new starting point after its history was lost. */
  public static CdcFlowInput resynced(MirrorConfig config) {
    return new CdcFlowInput(config, null, true, null);
  }

  public static CdcFlowInput continued(CarriedState carried) {
    return new CdcFlowInput(null, carried, false, null);
  }

  /** The chosen start point of a new mirror, or null. */
  public Checkpoint chosenStart() {
    return carried == null ? startAt : null;
  }

  public boolean isResync() {
    return carried == null && Boolean.TRUE.equals(resync);
  }

  /**
   * Reads the input as the data converter decoded it. The workflow takes its input raw so that
   * an input that does not fit (a misspelt setting, a value of the wrong type) fails the workflow
   * with this reason; bound by the SDK, it would fail every workflow task instead, forever.
   *
   * @throws IllegalArgumentException naming the field that does not fit and why
   */
  public static CdcFlowInput fromJson(Object json) {
    if (json instanceof CdcFlowInput input) {
      return input;
    }
    if (json == null) {
      throw new IllegalArgumentException("the workflow has no input; start it with {\"config\": {...}, \"carried\": null}");
    }
    return JsonInput.read(json, CdcFlowInput.class, "the input");
  }
}
