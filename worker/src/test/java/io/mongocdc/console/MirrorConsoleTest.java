package io.mongocdc.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.ConsoleQueries;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStateChange;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console over a real catalog, by HTTP: what its pages show and hide, and which action
 * requests it takes (a browser drives it in ConsoleBrowserTest, where Chromium is installed).
 */
class MirrorConsoleTest {

  private static final String SECRET = "s3cretCanaryPw";
  private static final Pattern TOKEN = Pattern.compile("name=\"token\" value=\"([0-9a-f]+)\"");

  private static DataSource catalogSource;
  private final HttpClient http = HttpClient.newHttpClient();

  /** Actions that record what they were asked and refuse edits, as the workflow's validator does. */
  private static final class RecordingActions implements MirrorActions {
    final List<String> asked = new ArrayList<>();

    @Override
    public String pause(String mirror) {
      asked.add("pause " + mirror);
      return "pause requested for mirror " + mirror;
    }

    @Override
    public String resume(String mirror) {
      asked.add("resume " + mirror);
      return "resume requested for mirror " + mirror;
    }

    @Override
    public String verify(String mirror) {
      asked.add("verify " + mirror);
      return "verify started";
    }

    @Override
    public String edit(String mirror, String json) {
      asked.add("edit " + mirror + " " + json);
      throw new ActionRefusedException("rejected: invalid edit: batchSize must be between 1 and 10000000, got 0");
    }
  }

  @BeforeAll
  static void catalogWithTwoMirrors() {
    catalogSource = EmbeddedPostgresSupport.newCatalogDatabase("console");
    Catalog catalog = Catalog.open(catalogSource);
    PostgresCheckpointCatalog port = new PostgresCheckpointCatalog(catalog);
    port.register(config("orders"));
    port.register(config("users"));
    port.recordState(new MirrorStateChange("users", MirrorPhase.FAILED, "failed",
        "<script>alert(1)</script> cannot reach mongodb://admin:" + SECRET + "@db.example:27017",
        "AuthenticationFailed", 3, System.currentTimeMillis(), 1, config("users"), null, null));
  }

  private static MirrorConfig config(String name) {
    return new MirrorConfig(name, "orders-mongo", "warehouse-pg", "shop", List.of(name), "public",
        MirrorSettings.defaults());
  }

  private HttpResponse<String> get(MirrorConsole console, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(console.url() + path.substring(1))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(MirrorConsole console, String path, String form, String origin) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(console.url() + path.substring(1)))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form));
    if (origin != null) {
      request.header("Origin", origin);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A status and body read from a raw exchange. */
  private record RawResponse(int status, String body) {}

  /**
   * One request written on a socket, so that its {@code Host} can be another site's name, as a
   * browser sends it for a page of {@code evil.example} that resolves to this console (HttpClient
   * always sends the address it connects to).
   */
  private static RawResponse raw(MirrorConsole console, String method, String path, String host, String origin,
      String form) throws Exception {
    byte[] body = form == null ? new byte[0] : form.getBytes(StandardCharsets.UTF_8);
    StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n");
    if (origin != null) {
      head.append("Origin: ").append(origin).append("\r\n");
    }
    if (form != null) {
      head.append("Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ").append(body.length)
          .append("\r\n");
    }
    head.append("Connection: close\r\n\r\n");
    try (Socket socket = new Socket("127.0.0.1", console.port())) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(answer.startsWith("HTTP/1.1 "), "an HTTP answer: " + answer);
      int status = Integer.parseInt(answer.substring(9, 12));
      int end = answer.indexOf("\r\n\r\n");
      return new RawResponse(status, end < 0 ? "" : answer.substring(end + 4));
    }
  }

  private static String tokenOf(String page) {
    Matcher token = TOKEN.matcher(page);
    assertTrue(token.find(), "the page holds the console's token: " + page);
    return token.group(1);
  }

  @Test
  void theOverviewShowsEveryMirrorAFailedOneInRedAndNoSecretOrMarkup() throws Exception {
    try (MirrorConsole console = MirrorConsole.start(ConsoleSettings.local(0, false), new ConsoleQueries(catalogSource),
        new RecordingActions())) {
      HttpResponse<String> overview = get(console, "/");
      assertEquals(200, overview.statusCode());
      String page = overview.body();
      assertTrue(page.contains("data-mirror=\"orders\""), page);
      assertTrue(page.contains("<tr class=\"bad\" data-mirror=\"users\">"), "a failed mirror is drawn red: " + page);
      assertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "its error is shown as text: " + page);
      assertFalse(page.contains("<script>alert(1)"), page);
      assertFalse(page.contains(SECRET), "no password from an error reaches the page");
      assertTrue(overview.headers().firstValue("Content-Security-Policy").orElse("").contains("script-src 'self'"));

      String mirror = get(console, "/mirrors/users").body();
      assertFalse(mirror.contains(SECRET), mirror);
      assertTrue(mirror.contains("id=\"chart-records\""), mirror);
      assertTrue(mirror.contains("\"batchSize\""), "the effective settings are shown: " + mirror);
      assertEquals(404, get(console, "/mirrors/nobody").statusCode());
      assertEquals(200, get(console, "/assets/uPlot.iife.min.js").statusCode(), "the charting library is served");
      assertEquals(200, get(console, "/assets/console.js").statusCode());
    }
  }

  @Test
  void theMirrorPageSetsTheRunningCopysTimeLeftAgainstTheOplogHeadroom() throws Exception {
    // Issue 48, item 4: 1 000 of about 4 000 documents copied in 100 s, 3 000 left: 5 minutes; the
    // oplog holds the checkpoint for 5 more minutes, less than the copy's time over three quarters.
    Catalog catalog = Catalog.open(catalogSource);
    PostgresCheckpointCatalog port = new PostgresCheckpointCatalog(catalog);
    port.register(config("copying"));
    long now = System.currentTimeMillis() / 1000;
    port.commit("copying", 1, io.mongocdc.source.StreamPosition.after(io.mongocdc.source.ResumeToken.of(
        String.format("82%08X%08X2B0404", now, 1))), io.mongocdc.workflows.model.BatchFigures.zero()
        .with(io.mongocdc.workflows.model.BatchFigures.END_REASON, "IDLE_TIMEOUT")
        .with(io.mongocdc.workflows.model.BatchFigures.ATTEMPTS, 1));
    port.recordOplogSpan("copying", new io.mongocdc.workflows.model.OplogSpan(now - 300, now), java.time.Instant.now());
    io.mongocdc.catalog.PostgresSnapshotCatalog snapshots = new io.mongocdc.catalog.PostgresSnapshotCatalog(catalog);
    snapshots.storePlan("copying", "copying", io.mongocdc.source.StreamPosition.atOperationTime(
        new org.bson.BsonTimestamp((int) now, 1)), "{}", 4_000, List.of("r0", "r1", "r2", "r3"));
    snapshots.partitionDone("copying", "copying", 0, 1_000, 10_000);
    catalog.dsl().execute("update mongo_cdc.snapshot_collections set planned_at = now() - interval '100 seconds'"
        + " where mirror_name = 'copying'");
    try (MirrorConsole console = MirrorConsole.start(ConsoleSettings.local(0, false), new ConsoleQueries(catalogSource),
        new RecordingActions())) {
      String page = get(console, "/mirrors/copying").body();
      assertTrue(page.contains("<p id=\"copy-time-left\" class=\"bad\">Copy time left: 5 min"), page);
      assertTrue(page.contains("at the rate so far, oplog headroom 4 min"), page);
      assertTrue(page.contains("more than three quarters of the"), page);
      assertFalse(get(console, "/mirrors/orders").body().contains("copy-time-left"), "no copy, no line");
    }
  }

  @Test
  void anActionNeedsThisConsolesTokenAndNoOtherSitesOrigin() throws Exception {
    RecordingActions actions = new RecordingActions();
    try (MirrorConsole console = MirrorConsole.start(ConsoleSettings.local(0, false), new ConsoleQueries(catalogSource),
        actions)) {
      String token = tokenOf(get(console, "/mirrors/orders/confirm?action=pause").body());
      String self = "http://127.0.0.1:" + console.port();

      assertEquals(403, post(console, "/mirrors/orders/pause", "", self).statusCode(), "no token");
      assertEquals(403, post(console, "/mirrors/orders/pause", "token=" + "0".repeat(48), self).statusCode(),
          "another token");
      assertEquals(403, post(console, "/mirrors/orders/pause", "token=" + token, "https://evil.example").statusCode(),
          "another site's page");
      assertTrue(actions.asked.isEmpty(), "nothing refused reached the mirror: " + actions.asked);

      HttpResponse<String> paused = post(console, "/mirrors/orders/pause", "token=" + token, self);
      assertEquals(200, paused.statusCode(), paused.body());
      assertTrue(paused.body().contains("pause requested for mirror orders"), paused.body());
      assertEquals(List.of("pause orders"), actions.asked);
    }
  }

  /**
   * Issue 47, finding 5: a page of another site whose name resolves to this console (DNS
   * rebinding) reads the token from a page and posts with its own, matching, Origin. Every request
   * for a name the console does not answer to is refused, before any page or action.
   */
  @Test
  void aRequestForAnotherHostNameIsRefusedEvenWithTheTokenAndAMatchingOrigin() throws Exception {
    RecordingActions actions = new RecordingActions();
    try (MirrorConsole console = MirrorConsole.start(ConsoleSettings.local(0, false), new ConsoleQueries(catalogSource),
        actions)) {
      String token = tokenOf(get(console, "/mirrors/orders").body());
      String evil = "evil.example:" + console.port();

      RawResponse page = raw(console, "GET", "/mirrors/orders", evil, null, null);
      assertEquals(403, page.status(), page.body());
      assertFalse(page.body().contains(token), "no token for another site's page: " + page.body());
      assertTrue(page.body().contains("this console answers to the host names 127.0.0.1, localhost, [::1], not "
          + evil + ". To reach it by another name (a proxy's), add that name with --console-allowed-hosts."),
          page.body());
      assertEquals(403, raw(console, "GET", "/", evil, null, null).status(), "the overview neither");
      assertEquals(403, raw(console, "POST", "/mirrors/orders/edit", evil, "http://" + evil,
          "token=" + token + "&edit=%7B%22removeFieldRules%22%3A%7B%22users%22%3A%5B%22email%22%5D%7D%7D").status());
      assertEquals(403, raw(console, "POST", "/mirrors/orders/pause", evil, "http://" + evil, "token=" + token)
          .status());
      assertEquals(403, raw(console, "POST", "/mirrors/orders/pause", "127.0.0.1.evil.example", null,
          "token=" + token).status(), "a name that only starts like this console's");
      assertEquals(403, raw(console, "POST", "/mirrors/orders/pause", "", null, "token=" + token).status(),
          "an empty Host");
      assertTrue(actions.asked.isEmpty(), "nothing refused reached the mirror: " + actions.asked);

      String local = "localhost:" + console.port();
      RawResponse paused = raw(console, "POST", "/mirrors/orders/pause", local, "http://" + local, "token=" + token);
      assertEquals(200, paused.status(), "localhost is this console bound to loopback: " + paused.body());
      assertEquals(List.of("pause orders"), actions.asked);
    }
  }

  /** Issue 47, finding 5: a sandboxed or opaque page posts with {@code Origin: null}, never a page of this console. */
  @Test
  void anActionWithOriginNullIsRefusedEvenWithTheToken() throws Exception {
    RecordingActions actions = new RecordingActions();
    try (MirrorConsole console = MirrorConsole.start(ConsoleSettings.local(0, false), new ConsoleQueries(catalogSource),
        actions)) {
      String token = tokenOf(get(console, "/mirrors/orders").body());
      HttpResponse<String> refused = post(console, "/mirrors/orders/pause", "token=" + token, "null");
      assertEquals(403, refused.statusCode(), refused.body());
      assertTrue(refused.body().contains("Refused: a request from another site (null)."), refused.body());
      assertTrue(actions.asked.isEmpty(), "nothing refused reached the mirror: " + actions.asked);
    }
  }

  /** Behind a proxy the console answers to the proxy's name when told it, and to no other. */
  @Test
  void aNameGivenAsAllowedIsServedWithItsActions() throws Exception {
    RecordingActions actions = new RecordingActions();
    ConsoleSettings settings = new ConsoleSettings("127.0.0.1", 0, false, List.of("CDC.example.com."));
    try (MirrorConsole console = MirrorConsole.start(settings, new ConsoleQueries(catalogSource), actions)) {
      RawResponse page = raw(console, "GET", "/mirrors/orders", "cdc.example.com", null, null);
      assertEquals(200, page.status(), page.body());
      String token = tokenOf(page.body());
      assertEquals(200, raw(console, "POST", "/mirrors/orders/pause", "cdc.example.com:443", "https://cdc.example.com:443",
          "token=" + token).status());
      RawResponse other = raw(console, "GET", "/", "other.example.com", null, null);
      assertEquals(403, other.status());
      assertTrue(other.body().contains("host names 127.0.0.1, localhost, [::1], cdc.example.com, not"), other.body());
      assertEquals(List.of("pause orders"), actions.asked);
    }
  }

  /** Issue 47, finding 11: a malformed percent-encoding got no HTTP answer at all. */
  @Test
  void aMalformedPercentEncodingIsABadRequestWithTheReason() throws Exception {
    RecordingActions actions = new RecordingActions();
    try (MirrorConsole console = MirrorConsole.start(ConsoleSettings.local(0, false), new ConsoleQueries(catalogSource),
        actions)) {
      String self = "http://127.0.0.1:" + console.port();
      HttpResponse<String> form = post(console, "/mirrors/orders/pause", "token=%ZZ", self);
      assertEquals(400, form.statusCode(), form.body());
      assertTrue(form.body().contains("Bad request: the field 'token' is not valid percent-encoding: a"
          + " '%' must be followed by two hexadecimal digits"), form.body());
      // Written raw: HttpClient refuses such a URI before sending it (and the server answers 400 itself).
      String host = "127.0.0.1:" + console.port();
      assertEquals(400, raw(console, "GET", "/mirrors/orders/confirm?action=%ZZ", host, null, null).status());
      assertEquals(400, raw(console, "GET", "/mirrors/%ZZ", host, null, null).status());
      assertTrue(actions.asked.isEmpty(), actions.asked.toString());
    }
  }

  @Test
  void aRejectedEditShowsTheWorkflowsReason() throws Exception {
    RecordingActions actions = new RecordingActions();
    try (MirrorConsole console = MirrorConsole.start(ConsoleSettings.local(0, false), new ConsoleQueries(catalogSource),
        actions)) {
      String token = tokenOf(get(console, "/mirrors/orders").body());
      HttpResponse<String> edit = post(console, "/mirrors/orders/edit",
          "token=" + token + "&edit=%7B%22batchSize%22%3A0%7D", null);
      assertEquals(422, edit.statusCode());
      assertTrue(edit.body().contains("edit refused: rejected: invalid edit: batchSize must be between 1 and 10000000,"
          + " got 0"), edit.body());
      assertEquals(List.of("edit orders {\"batchSize\":0}"), actions.asked);
    }
  }

  @Test
  void aReadOnlyConsoleOffersNoActionAndTakesNone() throws Exception {
    RecordingActions actions = new RecordingActions();
    try (MirrorConsole console = MirrorConsole.start(ConsoleSettings.local(0, true), new ConsoleQueries(catalogSource),
        actions)) {
      String page = get(console, "/mirrors/orders").body();
      assertFalse(page.contains("<form"), page);
      assertFalse(page.contains("name=\"token\""), page);
      assertTrue(page.contains("Read-only console"), page);
      assertEquals(404, get(console, "/mirrors/orders/confirm?action=pause").statusCode());
      assertEquals(403, post(console, "/mirrors/orders/pause", "token=x", null).statusCode());
      assertTrue(actions.asked.isEmpty());
    }
  }
}
