package io.mongocdc.secrets;

import java.util.regex.Pattern;

/**
 * Removes credentials from connection strings and from any text that may echo one: the password
 * of any {@code scheme://user:password@host} URI, and the value of every parameter that carries a
 * secret (JDBC query parameters, libpq keywords and MongoDB URI options, quoted or not). The one
 * place the project defines what a secret looks like; every output (CLI lines, log lines, library
 * log lines, error messages) goes through it.
 *
 * <p>Users write passwords unencoded too: a URI password runs from the first {@code :} after the
 * user to the last {@code @} before the host, so it may hold {@code @}, {@code /}, {@code :} and
 * {@code ?} (a user may hold {@code @}); where it holds a space, it cannot also hold {@code /}.
 * Secret parameters are every name ending in {@code password}, {@code passwd}, {@code
 * passphrase} or {@code secret} ({@code sslpassword}, {@code tlsCertificateKeyFilePassword},
 * {@code client_secret}, ...), {@code pwd}, and the AWS keys and session tokens MongoDB's
 * {@code MONGODB-AWS} authentication takes ({@code AWS_SESSION_TOKEN:...} inside {@code
 * authMechanismProperties} too). When in doubt, more is hidden rather than less.
 */
public final class Redaction {

  /** The host after the password's {@code @}: no {@code @}, then the end of the authority. */
  private static final String HOST_FOLLOWS = "(?=[^@\\s/?#]*(?:[/?#\\s'\",;)]|$))";
  private static final Pattern USER_INFO = Pattern.compile(
      "([A-Za-z][A-Za-z0-9+.-]*://[^:/?#\\s]*):(\\S*|[^/]*?)@" + HOST_FOLLOWS);
  private static final String SECRET_NAME =
      "(?:[A-Za-z0-9_]*(?:password|passwd|passphrase|secret)|pwd|aws_secret_access_key|aws_session_token"
          + "|session_token|sessiontoken)";
  private static final Pattern SECRET_PARAMETER = Pattern.compile(
      "(?i)((?<![A-Za-z0-9_])" + SECRET_NAME + "\\s*=\\s*)('(?:[^'\\\\]|\\\\.)*'?|\"(?:[^\"\\\\]|\\\\.)*\"?|[^&\\s]*)");
  /** {@code authMechanismProperties=AWS_SESSION_TOKEN:token,...}: a property within an option's value. */
  private static final Pattern SECRET_PROPERTY = Pattern.compile(
      "(?i)((?<![A-Za-z0-9_])aws_session_token\\s*:\\s*)([^,&\\s]*)");

  private Redaction() {}

  /** The text with every password replaced by {@code ***}; null stays null. */
  public static String redact(String text) {
    if (text == null) {
      return null;
    }
    String redacted = USER_INFO.matcher(text).replaceAll("$1:***@");
    redacted = SECRET_PARAMETER.matcher(redacted).replaceAll("$1***");
    return SECRET_PROPERTY.matcher(redacted).replaceAll("$1***");
  }
}
