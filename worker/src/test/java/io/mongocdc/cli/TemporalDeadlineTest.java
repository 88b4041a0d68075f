package io.mongocdc.cli;

import io.mongocdc.wiring.PortsFactory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Issue 36, finding 11: a Temporal that is up but slow is not "unreachable". A listener that
 * accepts connections and never answers stands for a server too busy to answer in time; a port
 * nobody listens on stands for one that is not there.
 */
class TemporalDeadlineTest {

  private static final CliContext GRPC = new CliContext(ClientFactory.grpc(), PortsFactory.installed(), Map.of(),
      stop -> stop.run());

  private static String statusError(String address, String timeoutSeconds) {
    StringWriter err = new StringWriter();
    int exit = MongoCdc.commandLine(GRPC).setOut(new PrintWriter(new StringWriter())).setErr(new PrintWriter(err, true))
        .execute("mirror", "status", "orders", "--temporal-address", address, "--temporal-timeout", timeoutSeconds);
    assertEquals(ExitCodes.FAILED, exit, err::toString);
    return err.toString();
  }

  @Test
  void aServerThatDoesNotAnswerInTimeIsSlowNotUnreachable() throws Exception {
    List<Socket> accepted = new CopyOnWriteArrayList<>();
    ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      try {
        while (true) {
          accepted.add(silent.accept());
        }
      } catch (IOException closed) {
        // The test is over.
      }
    }, "silent-temporal");
    acceptor.start();
    try {
      String err = statusError("127.0.0.1:" + silent.getLocalPort(), "1");
      assertTrue(err.startsWith("mongo-cdc: mirror 'orders': Temporal at 127.0.0.1:" + silent.getLocalPort()
          + " did not answer within 1 s"), err);
      assertTrue(err.contains("--temporal-timeout"), err);
      assertFalse(err.contains("cannot reach"), err);
    } finally {
      silent.close();
      acceptor.join();
      for (Socket socket : accepted) {
        socket.close();
      }
    }
  }

  @Test
  void aPortNobodyListensOnIsUnreachable() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    String err = statusError("127.0.0.1:" + port, "5");
    assertTrue(err.startsWith("mongo-cdc: cannot reach Temporal at 127.0.0.1:" + port), err);
  }

  @Test
  void aTimeoutBelowOneSecondIsRefused() {
    StringWriter err = new StringWriter();
    int exit = MongoCdc.commandLine(GRPC).setOut(new PrintWriter(new StringWriter())).setErr(new PrintWriter(err, true))
        .execute("mirror", "status", "orders", "--temporal-timeout", "0");
    assertEquals(ExitCodes.INVALID, exit, err::toString);
    assertTrue(err.toString().contains("--temporal-timeout must be at least 1 second, got 0"), err.toString());
  }
}
