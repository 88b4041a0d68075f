package io.mongocdc.secrets;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;

/** {@code %redactedEx} in a logback pattern: stack traces with every password removed from their messages. */
public final class RedactedThrowableConverter extends ThrowableProxyConverter {

  @Override
  protected String throwableProxyToString(IThrowableProxy proxy) {
    return Redaction.redact(super.throwableProxyToString(proxy));
  }
}
