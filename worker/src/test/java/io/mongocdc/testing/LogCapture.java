package io.mongocdc.testing;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.LoggerFactory;

/**
 * Every line logged while it is started, formatted as the worker's {@code logback.xml} formats
 * it (the redacting conversions), so a test sees what an operator's log would hold.
 */
public final class LogCapture implements AutoCloseable {

  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
  private final OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();

  private LogCapture() {}

  /** Starts capturing every logger's lines. */
  public static LogCapture start() {
    LogCapture capture = new LogCapture();
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%logger - %redactedMsg%n%redactedEx"); // the worker's pattern, as logback.xml has it
    encoder.start();
    capture.appender.setContext(context);
    capture.appender.setEncoder(encoder);
    capture.appender.setOutputStream(capture.logged);
    capture.appender.start();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(capture.appender);
    return capture;
  }

  /** What was logged so far. */
  public String text() {
    return logged.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
        .detachAppender(appender);
    appender.stop();
  }
}
