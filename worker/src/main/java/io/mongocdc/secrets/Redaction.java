package io.mongocdc.secrets;

import java.util.regex.Pattern;

/** Removes credentials from connection strings and from any text that may echo one. */
public final class Redaction {

  // scheme://user:password@ -> scheme://user:****@ ; also catches a bare scheme://user@ with no password.
  private static final Pattern USER_INFO =
      Pattern.compile("(?i)(mongodb(?:\\+srv)?://|postgres(?:ql)?://|jdbc:postgresql://)([^:@/\\s]*)(:[^@/\\s]*)?@");
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)([?&;](?:password|pwd)=)[^&;\\s]*");

  private Redaction() {}

  /** The text with every password in a URI's user info or a password parameter replaced by ****. */
  public static String redact(String text) {
    if (text == null) {
      return null;
    }
    String result = USER_INFO.matcher(text).replaceAll(match ->
        match.group(1) + java.util.regex.Matcher.quoteReplacement(match.group(2))
            + (match.group(3) == null ? "" : ":****") + "@");
    return PASSWORD_PARAMETER.matcher(result).replaceAll("$1****");
  }
}
