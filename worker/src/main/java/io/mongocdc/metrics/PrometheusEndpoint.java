package io.mongocdc.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** Serves a Prometheus registry's scrape at {@code /metrics} over plain HTTP. */
public final class PrometheusEndpoint implements AutoCloseable {

  private final HttpServer server;

  private PrometheusEndpoint(HttpServer server) {
    this.server = server;
  }

  /** Starts serving on {@code host:port} (port 0: any free port). */
  public static PrometheusEndpoint start(PrometheusMeterRegistry registry, String host, int port) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
    server.createContext("/metrics", exchange -> {
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return new PrometheusEndpoint(server);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
