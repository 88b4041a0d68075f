package io.mongocdc.workflows.model;

/**
 * The input of a mirror's workflow run: a new mirror's configuration, or the state carried over
 * by continue-as-new.
 *
 * @param config the mirror, for a new mirror; ignored when {@code carried} is present
 * @param carried the state of the previous run, or null for a new mirror
 */
public record CdcFlowInput(MirrorConfig config, CarriedState carried) {

  public static CdcFlowInput newMirror(MirrorConfig config) {
    return new CdcFlowInput(config, null);
  }

  public static CdcFlowInput continued(CarriedState carried) {
    return new CdcFlowInput(null, carried);
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
