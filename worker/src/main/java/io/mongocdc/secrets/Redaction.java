package io.mongocdc.secrets;

import java.util.regex.Pattern;

/**
 * Removes credentials from connection strings and from any text that may echo one: the password
 * of any {@code scheme://user:password@host} URI, and the value of {@code password=},
 * {@code pwd=} or {@code secret=} parameters (JDBC query parameters and libpq keywords, quoted or
 * not). The one place the project defines what a secret looks like.
 *
 * <p>Users write passwords unencoded too: a URI password runs from the first {@code :} after the
 * user to the last {@code @} before the host, so it may hold {@code @} and spaces (a user may
 * hold {@code @}); it cannot hold {@code /}, which ends the authority. When in doubt, more is
 * hidden rather than less.
 */
public final class Redaction {

  private static final Pattern USER_INFO = Pattern.compile(
      "([A-Za-z][A-Za-z0-9+.-]*://[^:/?#\\s]*):([^/]*?)@(?=[^@\\s/?#]*(?:[/?#\\s]|$))");
  private static final Pattern PASSWORD_PARAMETER = Pattern.compile(
      "(?i)((?<![A-Za-z])(?:password|pwd|secret)\\s*=\\s*)('(?:[^'\\\\]|\\\\.)*'?|\"(?:[^\"\\\\]|\\\\.)*\"?|[^&\\s]*)");

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
