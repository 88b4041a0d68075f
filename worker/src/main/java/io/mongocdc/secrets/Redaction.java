package io.mongocdc.secrets;

import java.util.regex.Pattern;

/**
 * Removes credentials from connection strings and from any text that may echo one: the user
 * info of any {@code scheme://user:password@host} URI, and {@code password=}, {@code pwd=} or
 * {@code secret=} parameters. The one place the project defines what a secret looks like.
 */
public final class Redaction {

  private static final Pattern USER_INFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://[^:/@\\s]*):([^@\\s]*)@");
  private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)((?:password|pwd|secret)=)[^&;\\s]*");

  private Redaction() {}

  /** The text with every password replaced by {@code ***}; null stays null. */
  public static String redact(String text) {
    if (text == null) {
      return null;
    }
    String redacted = USER_INFO.matcher(text).replaceAll("$1:***@");
    return PASSWORD_PARAMETER.matcher(redacted).replaceAll("$1***");
  }
}
