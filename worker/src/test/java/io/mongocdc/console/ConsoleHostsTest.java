package io.mongocdc.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which {@code Host} headers name the console: its own names whatever the port, no other. */
class ConsoleHostsTest {

  @Test
  void aHostHeaderIsReadAsItsNameWithoutPortCaseOrFinalDot() {
    assertEquals("localhost", ConsoleHosts.nameOf("LocalHost.:8088"));
    assertEquals("[::1]", ConsoleHosts.nameOf("[::1]:8088"));
    assertEquals("[::1]", ConsoleHosts.nameOf("::1"), "an IPv6 address as an option gives it");
    assertEquals("127.0.0.1", ConsoleHosts.nameOf("127.0.0.1"));
    assertNull(ConsoleHosts.nameOf("evil.example:80x"));
    assertNull(ConsoleHosts.nameOf("[::1"));
    assertNull(ConsoleHosts.nameOf("http://cdc.example.com/"));
    assertNull(ConsoleHosts.nameOf(""));
  }

  @Test
  void loopbackServesItsNamesAndTheAllowedOnesOnly() {
    ConsoleHosts hosts = ConsoleHosts.of("127.0.0.1", new InetSocketAddress("127.0.0.1", 0), List.of("cdc.example.com"));
    assertEquals("127.0.0.1, localhost, [::1], cdc.example.com", hosts.describe());
    assertTrue(hosts.serves("localhost:8088"));
    assertTrue(hosts.serves("[::1]:8088"));
    assertTrue(hosts.serves("CDC.example.com"));
    assertFalse(hosts.serves("evil.example:8088"));
    assertFalse(hosts.serves("localhost.evil.example"));
    assertFalse(hosts.serves(null));
    assertThrows(IllegalArgumentException.class,
        () -> ConsoleHosts.of("127.0.0.1", new InetSocketAddress("127.0.0.1", 0), List.of("a b")));
  }

  @Test
  void anotherAddressServesItselfNotTheLoopbackNames() {
    ConsoleHosts hosts = ConsoleHosts.of("10.1.2.3", InetSocketAddress.createUnresolved("10.1.2.3", 0), List.of());
    assertTrue(hosts.serves("10.1.2.3:8088"));
    assertFalse(hosts.serves("localhost:8088"));
  }
}
