package io.mongocdc.devtools;

/**
 * The lines of dev's progress area, one per phase: a label, a bar a quarter of the terminal's
 * width (at least 10 columns, at most 40, the same from one update to the next) and the figures.
 * {@link DevTerminal#show} cuts each where the width ends.
 */
final class PhaseLines {

  private static final int LABEL = 10;
  private static final int MIN_BAR = 10;
  private static final int MAX_BAR = 40;

  private PhaseLines() {}

  /** A phase with a known end: {@code label [####....] figures}, the bar filled {@code done / total}. */
  static String bar(String label, long done, long total, String figures, int width) {
    String head = String.format("%-" + LABEL + "s", label);
    int bar = Math.max(MIN_BAR, Math.min(MAX_BAR, width / 4));
    int filled = total <= 0 ? 0 : (int) Math.min(bar, bar * Math.max(0, done) / total);
    return head + "[" + "#".repeat(filled) + ".".repeat(bar - filled) + "] " + figures;
  }

  /** A phase without a known end, or one that is over: {@code label figures}. */
  static String text(String label, String figures) {
    return String.format("%-" + LABEL + "s", label) + figures;
  }
}
