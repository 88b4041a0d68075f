package io.mongocdc.devtools;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** The progress bar of a dev run: records delivered, in plain ASCII so it survives any terminal and log. */
final class RecordsProgressBar {

  private RecordsProgressBar() {}

  /** @param max the records the run ends at; 0 or less for a run without an end */
  static ProgressBar start(String taskName, long max) {
    return new ProgressBarBuilder()
        .setTaskName(taskName)
        .setInitialMax(max > 0 ? max : -1)
        .setStyle(ProgressBarStyle.ASCII)
        .setUpdateIntervalMillis(500)
        .setUnit(" records", 1)
        .continuousUpdate()
        .build();
  }
}
