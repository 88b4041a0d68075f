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
}
