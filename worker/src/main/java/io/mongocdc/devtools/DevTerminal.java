package io.mongocdc.devtools;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.FileAppender;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.Status;
import org.slf4j.LoggerFactory;

/**
 * An interactive {@code dev}'s terminal: a progress area at the bottom (one line per phase, fit to
 * the terminal's width, redrawn in place), log lines in a file instead of the screen, and warnings
 * and errors printed above the area. Only where standard output is a terminal that can keep lines
 * at the bottom (a scroll region); {@code --headless} and piped output keep plain lines.
 */
final class DevTerminal implements AutoCloseable {

  /** The context property logback.xml declares its log lines' pattern in, redaction included. */
  static final String LOG_PATTERN = "LOG_PATTERN";

  private final Terminal terminal;
  private final Status status;
  private final Path logFile;
  private final List<Appender<ILoggingEvent>> detached = new ArrayList<>();
  private final List<Appender<ILoggingEvent>> attached = new ArrayList<>();
  private final PrintWriter writer;

  private DevTerminal(Terminal terminal, Status status, Path logFile) {
    this.terminal = terminal;
    this.status = status;
    this.logFile = logFile;
    this.writer = terminal.writer();
  }

  /**
   * The terminal, its logs moved to {@code logFile}; null when standard input and output are not
   * both a terminal, or it cannot keep lines at the bottom (the caller prints plain lines).
   */
  static DevTerminal open(Path logFile) {
    if (System.console() == null) {
      return null;
    }
    Terminal terminal;
    try {
      terminal = TerminalBuilder.builder().system(true).dumb(false).encoding(StandardCharsets.UTF_8).build();
    } catch (IOException | RuntimeException e) {
      return null;
    }
    Status status = Status.getStatus(terminal);
    if (status == null || Terminal.TYPE_DUMB.equals(terminal.getType()) || terminal.getWidth() < 20) {
      close(terminal);
      return null;
    }
    String pattern = ((LoggerContext) LoggerFactory.getILoggerFactory()).getProperty(LOG_PATTERN);
    if (pattern == null) {
      // Another logging configuration than the worker's: its log lines stay where it sends them.
      close(terminal);
      return null;
    }
    DevTerminal opened = new DevTerminal(terminal, status, logFile);
    opened.moveLogs(pattern);
    return opened;
  }

  Path logFile() {
    return logFile;
  }

  /** The terminal's width now, in columns. */
  int width() {
    return Math.max(20, terminal.getWidth());
  }

  /** Redraws the progress area: one line per phase, each cut to the width. */
  synchronized void show(List<String> lines) {
    List<AttributedString> fitted = new ArrayList<>();
    int width = width() - 1;
    for (String line : lines) {
      fitted.add(new AttributedString(line.length() > width ? line.substring(0, width) : line));
    }
    status.update(fitted);
    terminal.flush();
  }

  /** A line printed above the progress area, which stays at the bottom. */
  synchronized void above(String line) {
    writer.print(line.endsWith("\n") ? line : line + "\n");
    writer.flush();
  }

  /** Log lines go to the file; warnings and errors also print above the area. */
  private void moveLogs(String pattern) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.iteratorForAppenders().forEachRemaining(detached::add);
    PatternLayoutEncoder fileEncoder = encoder(context, pattern);
    FileAppender<ILoggingEvent> file = new FileAppender<>();
    file.setContext(context);
    file.setName("dev-log-file");
    file.setFile(logFile.toString());
    file.setAppend(true);
    file.setEncoder(fileEncoder);
    file.start();
    PatternLayoutEncoder aboveEncoder = encoder(context, pattern);
    AppenderBase<ILoggingEvent> warnings = new AppenderBase<>() {
      @Override
      protected void append(ILoggingEvent event) {
        above(new String(aboveEncoder.encode(event), StandardCharsets.UTF_8));
      }
    };
    ThresholdFilter warnAndAbove = new ThresholdFilter();
    warnAndAbove.setLevel("WARN");
    warnAndAbove.start();
    warnings.addFilter(warnAndAbove);
    warnings.setContext(context);
    warnings.setName("dev-terminal-warnings");
    warnings.start();
    attached.add(file);
    attached.add(warnings);
    attached.forEach(root::addAppender);
    detached.forEach(root::detachAppender);
  }

  private static PatternLayoutEncoder encoder(LoggerContext context, String pattern) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(pattern);
    encoder.setCharset(StandardCharsets.UTF_8);
    encoder.start();
    return encoder;
  }

  /** Clears the progress area and gives the whole screen back; log lines still go to the file. */
  synchronized void clearArea() {
    status.update(List.of());
    terminal.flush();
  }

  /** Clears the area; log lines go where they went before. */
  @Override
  public synchronized void close() {
    clearArea();
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    detached.forEach(root::addAppender);
    attached.forEach(appender -> {
      root.detachAppender(appender);
      appender.stop();
    });
    close(terminal);
  }

  private static void close(Terminal terminal) {
    try {
      terminal.close();
    } catch (IOException ignored) {
      // The process is ending its use of the terminal either way.
    }
  }
}
