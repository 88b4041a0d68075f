package io.mongocdc.secrets;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %redactedMsg} in a logback pattern: the formatted message with every password removed,
 * whichever library logged it (pgjdbc and the MongoDB driver quote connection strings).
 */
public final class RedactedMessageConverter extends MessageConverter {

  @Override
  public String convert(ILoggingEvent event) {
    return Redaction.redact(super.convert(event));
  }
}
