package io.mongocdc.activities;

import java.util.regex.Pattern;

/**
 * Removes credentials from text that may leave the worker (failure messages, logs): the
 * password of {@code scheme://user:password@host} and {@code password=...} parameters.
 */
public final class Redaction {

  private static final Pattern USER_INFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://[^:/@\\s]*):([^@\\s]*)@");
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)((?:password|pwd|secret)=)[^&;\\s]*");

  private Redaction() {}

  public static String redact(String text) {
    if (text == null) {
      return null;
    }
    String redacted = USER_INFO.matcher(text).replaceAll("$1:***@");
    return PASSWORD_PARAMETER.matcher(redacted).replaceAll("$1***");
  }
}
