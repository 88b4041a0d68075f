package io.mongocdc.faults;

import io.mongocdc.source.scripted.Gate;

/** One gate fault of the plan. */
final class PlannedGate {
  final GateFault kind;
  final GatePoint point;
  final int at;
  final Gate gate;
  final String collection;
  final int open;
  final int nth;
  /** The thread that reached (or will reach) the gate, for gates in a copy. */
  volatile Thread thread;
  boolean fired;

  PlannedGate(GateFault kind, GatePoint point, int at, Gate gate, String collection, int open, int nth) {
    this.kind = kind;
    this.point = point;
    this.at = at;
    this.gate = gate;
    this.collection = collection;
    this.open = open;
    this.nth = nth;
  }

  @Override
  public String toString() {
    return switch (point) {
      case STREAM -> kind + " at event " + at;
      case COPY -> kind + " in open " + open + " of " + collection + " at document " + nth;
      case RECORDED_DONE -> kind + " after partition done " + open;
    };
  }
}
