package io.mongocdc.pipeline;

/** A poison event under {@code poisonEventPolicy} FAIL: retrying would meet it again. */
public class PoisonEventException extends Exception {

  private final transient PoisonEvent event;

  public PoisonEventException(PoisonEvent event) {
    super("cannot apply the " + event.describe());
    this.event = event;
  }

  public PoisonEvent event() {
    return event;
  }
}
