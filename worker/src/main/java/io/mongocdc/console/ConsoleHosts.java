package io.mongocdc.console;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The host names the console answers to. A page of another site can make a browser send requests
 * to the console's address under the site's own name (DNS rebinding: {@code evil.example} resolved
 * to 127.0.0.1), and then read the console's answers as its own; the {@code Host} header is what
 * gives that away, so a request for a name not listed here gets nothing. Ports are not compared:
 * behind a proxy the {@code Host} carries the proxy's port.
 */
final class ConsoleHosts {

  private static final List<String> LOOPBACK_NAMES = List.of("localhost", "127.0.0.1", "[::1]");

  /** In the order {@link #describe} lists them. */
  private final Set<String> names;

  private ConsoleHosts(Set<String> names) {
    this.names = names;
  }

  /**
   * The names of a console bound to {@code bound} as {@code host}: {@code host} as given and the
   * address it bound; the loopback names when that address is a loopback (or every) address; and
   * {@code allowed}, the names an operator added.
   *
   * @throws IllegalArgumentException for an allowed name that is not a host name
   */
  static ConsoleHosts of(String host, InetSocketAddress bound, List<String> allowed) {
    Set<String> names = new LinkedHashSet<>();
    names.add(requireName(host));
    InetAddress address = bound.getAddress();
    if (address != null) {
      names.add(requireName(address.getHostAddress()));
      if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
        names.addAll(LOOPBACK_NAMES);
      }
    }
    for (String name : allowed) {
      names.add(requireName(name));
    }
    return new ConsoleHosts(Collections.unmodifiableSet(names));
  }

  /** Whether a request with this {@code Host} header (null when it had none) is for this console. */
  boolean serves(String hostHeader) {
    String name = hostHeader == null ? null : nameOf(hostHeader);
    return name != null && names.contains(name);
  }

  /** The names served, for messages: {@code 127.0.0.1, localhost, [::1]}. */
  String describe() {
    return String.join(", ", names);
  }

  private static String requireName(String given) {
    String name = given == null ? null : nameOf(given);
    if (name == null) {
      throw new IllegalArgumentException("'" + given + "' is not a host name or address (a name such as"
          + " cdc.example.com, an IPv4 address, or an IPv6 address in brackets)");
    }
    return name;
  }

  /**
   * The host name of a {@code Host} header or a configured name, lower case, without its port or a
   * final dot, an IPv6 address in brackets; null when it is none.
   */
  static String nameOf(String given) {
    String value = given.strip().toLowerCase(Locale.ROOT);
    String name;
    String port = "";
    if (value.startsWith("[")) {
      int end = value.indexOf(']');
      if (end < 0) {
        return null;
      }
      name = value.substring(0, end + 1);
      String rest = value.substring(end + 1);
      if (!rest.isEmpty()) {
        if (!rest.startsWith(":")) {
          return null;
        }
        port = rest.substring(1);
      }
    } else if (value.indexOf(':') != value.lastIndexOf(':')) {
      name = "[" + value + "]"; // an IPv6 address as an option gives it, without brackets
    } else {
      int colon = value.indexOf(':');
      name = colon < 0 ? value : value.substring(0, colon);
      port = colon < 0 ? "" : value.substring(colon + 1);
    }
    if (name.endsWith(".")) {
      name = name.substring(0, name.length() - 1);
    }
    boolean validPort = port.isEmpty() || (port.length() <= 5 && port.chars().allMatch(Character::isDigit));
    return !validPort || name.isEmpty() || name.equals("[]") || !plausible(name) ? null : name;
  }

  /** ASCII letters, digits, '-', '.' and '_' for a name; hex digits, ':', '.' and a zone for an IPv6 address. */
  private static boolean plausible(String name) {
    boolean ipv6 = name.startsWith("[");
    String chars = ipv6 ? name.substring(1, name.length() - 1) : name;
    String extra = ipv6 ? ":.%" : "-._";
    return chars.chars().allMatch(c -> (c < 128 && Character.isLetterOrDigit(c)) || extra.indexOf(c) >= 0);
  }
}
