package io.mongocdc.suggest;

import java.util.EnumMap;
import java.util.Map;

/** The values seen at one path: in how many documents it was present, and of which kinds. */
final class PathTally {

  private final Map<ValueKind, Long> kinds = new EnumMap<>(ValueKind.class);
  private long present;

  void add(ValueKind kind) {
    present++;
    kinds.merge(kind, 1L, Long::sum);
  }

  long present() {
    return present;
  }

  Map<ValueKind, Long> kinds() {
    return kinds;
  }
}
