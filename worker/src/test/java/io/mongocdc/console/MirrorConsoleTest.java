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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
        "AuthenticationFailed", 3, System.currentTimeMillis(), 1, config("users"), null));
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

  private static String tokenOf(String page) {
    Matcher token = TOKEN.matcher(page);
    assertTrue(token.find(), "the page holds the console's token: " + page);
    return token.group(1);
  }

  @Test
  void theOverviewShowsEveryMirrorAFailedOneInRedAndNoSecretOrMarkup() throws Exception {
    try (MirrorConsole console = MirrorConsole.start("127.0.0.1", 0, new ConsoleQueries(catalogSource),
        new RecordingActions(), false)) {
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
  void anActionNeedsThisConsolesTokenAndNoOtherSitesOrigin() throws Exception {
    RecordingActions actions = new RecordingActions();
    try (MirrorConsole console = MirrorConsole.start("127.0.0.1", 0, new ConsoleQueries(catalogSource), actions,
        false)) {
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

  @Test
  void aRejectedEditShowsTheWorkflowsReason() throws Exception {
    RecordingActions actions = new RecordingActions();
    try (MirrorConsole console = MirrorConsole.start("127.0.0.1", 0, new ConsoleQueries(catalogSource), actions,
        false)) {
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
    try (MirrorConsole console = MirrorConsole.start("127.0.0.1", 0, new ConsoleQueries(catalogSource), actions,
        true)) {
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
