package io.mongocdc.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.mongocdc.catalog.ConsoleQueries;
import io.mongocdc.secrets.Redaction;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mirror console: web pages a worker serves of every mirror, from the catalog, with the
 * actions the CLI has (pause, resume, verify, edit) through the same Temporal calls. Bound to
 * localhost unless told otherwise, and answering only requests for its own host names ({@link
 * ConsoleHosts}). An action must come from a page this console served (a token it put in the form,
 * and an {@code Origin}, if any, of this host), and none is taken when read-only.
 */
public final class MirrorConsole implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(MirrorConsole.class);
  private static final Set<String> CONFIRMED_ACTIONS = Set.of("pause", "resume", "verify");
  private static final Map<String, String> ASSETS = Map.of(
      "/assets/uPlot.iife.min.js", "META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.iife.min.js",
      "/assets/uPlot.min.css", "META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.min.css",
      "/assets/console.js", "io/mongocdc/console/console.js",
      "/assets/console.css", "io/mongocdc/console/console.css");

  private final HttpServer server;
  private final ExecutorService threads;
  private final ConsolePages pages;
  private final MirrorActions actions;
  private final boolean readOnly;
  private final ConsoleHosts hosts;
  private final String token;

  private MirrorConsole(HttpServer server, ExecutorService threads, ConsoleQueries catalog, MirrorActions actions,
      boolean readOnly, ConsoleHosts hosts) {
    this.server = server;
    this.threads = threads;
    this.pages = new ConsolePages(catalog, readOnly);
    this.actions = actions;
    this.readOnly = readOnly;
    this.hosts = hosts;
    byte[] random = new byte[24];
    new SecureRandom().nextBytes(random);
    this.token = HexFormat.of().formatHex(random);
  }

  /**
   * Starts serving on the settings' host and port (port 0: any free port).
   *
   * @throws IllegalArgumentException if an allowed host is not a host name
   */
  public static MirrorConsole start(ConsoleSettings settings, ConsoleQueries catalog, MirrorActions actions)
      throws IOException {
    InetSocketAddress address = new InetSocketAddress(settings.host(), settings.port());
    ConsoleHosts hosts = ConsoleHosts.of(settings.host(), address, settings.allowedHosts());
    HttpServer server = HttpServer.create(address, 0);
    ExecutorService threads = Executors.newFixedThreadPool(4, runnable -> {
      Thread thread = new Thread(runnable, "mongo-cdc-console");
      thread.setDaemon(true);
      return thread;
    });
    MirrorConsole console = new MirrorConsole(server, threads, catalog, actions, settings.readOnly(), hosts);
    server.createContext("/", console::handle);
    server.setExecutor(threads);
    server.start();
    return console;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The address to open, as the banner prints it. */
  public String url() {
    String host = server.getAddress().getHostString();
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port() + "/";
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String host = exchange.getRequestHeaders().getFirst("Host");
      if (!hosts.serves(host)) {
        // Before anything is read or done: a page of another site under a name that resolves here.
        html(exchange, 403, pages.message("refused", "Refused: this console answers to the host names "
            + hosts.describe() + ", not " + (host == null ? "a request without a Host header" : host)
            + ". To reach it by another name (a proxy's), add that name with --console-allowed-hosts."));
        return;
      }
      try {
        route(exchange);
      } catch (MalformedRequestException e) {
        html(exchange, 400, pages.message("bad request", "Bad request: " + e.getMessage()));
      } catch (RuntimeException e) {
        log.warn("console: {} {} failed: {}", exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
            Redaction.redact(String.valueOf(e.getMessage())));
        html(exchange, 500, pages.notFound("The page failed: " + e.getMessage()));
      }
    }
  }

  private void route(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getRawPath();
    String method = exchange.getRequestMethod();
    if (method.equals("GET") && ASSETS.containsKey(path)) {
      asset(exchange, ASSETS.get(path));
      return;
    }
    List<String> parts = List.of(path.split("/"));
    if (method.equals("GET") && path.equals("/")) {
      html(exchange, 200, pages.overview());
    } else if (parts.size() >= 3 && parts.get(1).equals("mirrors")) {
      mirror(exchange, method, decoded("the mirror's name in the path", parts.get(2)),
          parts.size() > 3 ? parts.get(3) : "");
    } else {
      html(exchange, 404, pages.notFound("No page at " + path));
    }
  }

  private void mirror(HttpExchange exchange, String method, String name, String action) throws IOException {
    if (method.equals("GET") && action.isEmpty()) {
      String page = pages.mirror(name, token);
      html(exchange, page == null ? 404 : 200, page == null ? pages.notFound("No mirror named " + name) : page);
    } else if (method.equals("GET") && action.equals("confirm")) {
      String asked = query(exchange).getOrDefault("action", "");
      if (readOnly || !CONFIRMED_ACTIONS.contains(asked)) {
        html(exchange, 404, pages.notFound(readOnly ? "This console is read-only." : "No action " + asked));
      } else {
        html(exchange, 200, pages.confirm(name, asked, token));
      }
    } else if (method.equals("POST") && (CONFIRMED_ACTIONS.contains(action) || action.equals("edit"))) {
      act(exchange, name, action);
    } else {
      html(exchange, method.equals("GET") ? 404 : 405, pages.notFound("No such page or action"));
    }
  }

  private void act(HttpExchange exchange, String name, String action) throws IOException {
    Map<String, String> form = form(exchange);
    String refused = refusal(exchange, form);
    if (refused != null) {
      html(exchange, 403, pages.outcome(name, refused, false));
      return;
    }
    try {
      String done = switch (action) {
        case "pause" -> actions.pause(name);
        case "resume" -> actions.resume(name);
        case "verify" -> actions.verify(name);
        default -> actions.edit(name, form.getOrDefault("edit", ""));
      };
      log.info("console: {} of mirror {}: {}", action, name, done);
      html(exchange, 200, pages.outcome(name, done, true));
    } catch (ActionRefusedException e) {
      html(exchange, 422, pages.outcome(name, action + " refused: " + e.getMessage(), false));
    }
  }

  /** Why an action request is refused, or null: read-only, no token of this console, another site's request. */
  private String refusal(HttpExchange exchange, Map<String, String> form) {
    if (readOnly) {
      return "This console is read-only (--console-read-only): actions are switched off.";
    }
    String sent = form.getOrDefault("token", "");
    if (!MessageDigest.isEqual(sent.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8))) {
      return "Refused: the request did not come from a page of this console (no valid token). Reload the page.";
    }
    // A browser sends Origin with every form it posts; "null" is a sandboxed or opaque page's, not this one.
    String origin = exchange.getRequestHeaders().getFirst("Origin");
    String host = exchange.getRequestHeaders().getFirst("Host");
    if (origin != null && !(origin.equals("http://" + host) || origin.equals("https://" + host))) {
      return "Refused: a request from another site (" + origin + ").";
    }
    if ("cross-site".equals(exchange.getRequestHeaders().getFirst("Sec-Fetch-Site"))) {
      return "Refused: a request from another site.";
    }
    return null;
  }

  private static Map<String, String> form(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readNBytes(64 * 1024);
    return decode(new String(body, StandardCharsets.UTF_8));
  }

  private static Map<String, String> query(HttpExchange exchange) {
    String raw = exchange.getRequestURI().getRawQuery();
    return raw == null ? Map.of() : decode(raw);
  }

  private static Map<String, String> decode(String encoded) {
    Map<String, String> values = new HashMap<>();
    for (String pair : encoded.split("&")) {
      if (!pair.isEmpty()) {
        String[] kv = pair.split("=", 2);
        String name = decoded("a field's name", kv[0]);
        values.put(name, kv.length > 1 ? decoded("the field '" + name + "'", kv[1]) : "");
      }
    }
    return values;
  }

  /** {@code raw} percent-decoded; {@code what} names it in the answer when it cannot be. */
  private static String decoded(String what, String raw) {
    try {
      return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new MalformedRequestException(what + " is not valid percent-encoding: a '%' must be followed by two"
          + " hexadecimal digits (%25 for '%' itself)");
    }
  }

  /** A request this console cannot read: answered 400 with the reason. */
  private static final class MalformedRequestException extends RuntimeException {
    MalformedRequestException(String message) {
      super(message);
    }
  }

  private static void asset(HttpExchange exchange, String resource) throws IOException {
    try (InputStream in = MirrorConsole.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("the console's asset " + resource + " is missing from the build");
      }
      byte[] body = in.readAllBytes();
      exchange.getResponseHeaders().set("Content-Type", resource.endsWith(".css") ? "text/css; charset=utf-8"
          : "text/javascript; charset=utf-8");
      exchange.getResponseHeaders().set("Cache-Control", "max-age=3600");
      send(exchange, 200, body);
    }
  }

  private static void html(HttpExchange exchange, int status, String page) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    // Scripts only from this console; no framing, no referrer to other sites.
    exchange.getResponseHeaders().set("Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'");
    exchange.getResponseHeaders().set("X-Frame-Options", "DENY");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
    send(exchange, status, page.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
