package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.testing.PatientServiceStubs;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.MirrorPhase;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.File;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The mirror console of a running {@code mongo-cdc dev}, driven in a real browser: Debian's
 * headless Chromium through its ChromeDriver. The overview lists the mirror, the mirror page's
 * charts have points, and pause from the page (with its confirmation) pauses the workflow.
 * Skipped with a notice where Chromium or ChromeDriver is not installed (Debian packages
 * {@code chromium} and {@code chromium-driver}), as MongoSourceIT is without MONGODB_URI.
 */
class ConsoleBrowserTest {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  @TempDir Path directory;

  @Test
  void theOverviewListsTheDevMirrorItsChartsHavePointsAndPauseFromThePagePausesIt() throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
        "Chromium or ChromeDriver is not installed (Debian packages chromium, chromium-driver): the console's browser"
            + " test did not run");
    int temporalPort = DevCommandTest.freePort();
    int consolePort = DevCommandTest.freePort();
    CountDownLatch ctrlC = new CountDownLatch(1);
    StringWriter out = new StringWriter();
    AtomicInteger exit = new AtomicInteger(-1);
    Thread dev = new Thread(() -> exit.set(DevCommandTest.cli(ctrlC, out).execute("dev", "--headless", "--rate",
        "3000", "--batch-size", "3000", "--temporal-port", String.valueOf(temporalPort), "--metrics-port", "-1",
        "--console-port", String.valueOf(consolePort), "--report", directory.resolve("report.json").toString())),
        "dev");
    dev.start();
    WorkflowServiceStubs service = PatientServiceStubs.to(temporalPort);
    WebDriver browser = null;
    try {
      WorkflowClient client = WorkflowClient.newInstance(service);
      CdcFlowWorkflow mirror = DevCommandTest.awaitWorkflow(client);
      DevCommandTest.await(mirror, s -> s.state() == MirrorPhase.RUNNING && s.committedBatchId() >= 2);
      assertTrue(out.toString().contains("console:     http://127.0.0.1:" + consolePort + "/"), out.toString());

      browser = chromium();
      String console = "http://127.0.0.1:" + consolePort + "/";
      browser.get(console);
      WebElement row = browser.findElement(By.cssSelector("#mirrors tr[data-mirror='dev']"));
      assertTrue(row.getText().contains("running"), row.getText());

      row.findElement(By.linkText("dev")).click();
      WebDriver page = browser;
      WebElement chart = awaitElement(() -> page.findElement(By.cssSelector("#chart-records[data-points]")));
      assertTrue(Integer.parseInt(chart.getAttribute("data-points")) >= 2, "the chart has a point per batch");
      assertTrue(chart.findElements(By.tagName("canvas")).size() > 0, "uPlot drew it");

      browser.findElement(By.id("pause")).click();
      browser.findElement(By.id("confirm")).click();
      assertTrue(browser.findElement(By.id("outcome")).getText().contains("pause requested for mirror dev"),
          browser.getPageSource());
      assertEquals(MirrorPhase.PAUSED, DevCommandTest.await(mirror, s -> s.state() == MirrorPhase.PAUSED).state());
      mirror.resume();
    } finally {
      if (browser != null) {
        browser.quit();
      }
      ctrlC.countDown();
      dev.join(Duration.ofSeconds(100).toMillis());
      service.shutdownNow();
    }
    assertEquals(0, exit.get(), out.toString());
  }

  private WebDriver chromium() {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    // As the machine's own check starts it: no sandbox as root, and no calls to the network it cannot reach.
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + directory.resolve("chromium"));
    ChromeDriverService driver = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
    return new ChromeDriver(driver, options);
  }

  /** The element once the page's script has made it; fails after 30 s. */
  private static WebElement awaitElement(Supplier<WebElement> find) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        return find.get();
      } catch (org.openqa.selenium.NoSuchElementException notYet) {
        if (System.nanoTime() > deadline) {
          throw notYet;
        }
        // Polls the page as awaitStatus polls the workflow: each look is a call to the driver.
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
    }
  }
}
