package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;
import java.util.Objects;

/**
 * How one pull or snapshot copy meets poison events: the destination's {@link RecordScreen} finds them among the
 * decoded records, and the mirror's policy decides what follows. FAIL fails the pull with a
 * {@link PoisonEventException} naming the event (undecodable events fail as they always did,
 * with the decode error); QUARANTINE hands each to a {@link PoisonEventHandler} and goes on.
 */
public final class PoisonEvents {

  /** No screen, and every undecodable event fails the pull: the pipeline on its own. */
  public static final PoisonEvents NONE = failing(RecordScreen.ACCEPT_ALL);

  private final RecordScreen screen;
  private final PoisonEventHandler quarantine;

  private PoisonEvents(RecordScreen screen, PoisonEventHandler quarantine) {
    this.screen = Objects.requireNonNull(screen, "screen");
    this.quarantine = quarantine;
  }

  public static PoisonEvents failing(RecordScreen screen) {
    return new PoisonEvents(screen, null);
  }

  public static PoisonEvents quarantining(RecordScreen screen, PoisonEventHandler quarantine) {
    return new PoisonEvents(screen, Objects.requireNonNull(quarantine, "quarantine"));
  }

  /** True if undecodable events are set aside rather than failing the pull. */
  boolean setsAside() {
    return quarantine != null;
  }

  /** The poison event this record is, or null if it can be applied. */
  public PoisonEvent screen(ChangeRecord record) throws Exception {
    String refusal = screen.refusal(record);
    return refusal == null ? null : PoisonEvent.refused(record, refusal);
  }

  /** Sets the event aside, or fails the pull (or snapshot copy) with a {@link PoisonEventException}. */
  public void take(PoisonEvent event) throws Exception {
    if (quarantine == null) {
      throw new PoisonEventException(event);
    }
    quarantine.setAside(event);
  }
}
