package io.mongocdc.cli;

import io.mongocdc.wiring.PortsFactory;
import io.mongocdc.wiring.ProductionPorts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.source.scripted.ScriptedSnapshotSource;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.ScriptedPullRecords;
import io.mongocdc.workflows.model.MirrorConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.mongocdc.testing.TestPorts;

/** {@code mongo-cdc mirror suggest-columns}, in-process, against a running mirror's scripted or generated source. */
class MirrorSuggestColumnsCommandTest {

  private final ScriptedPullRecords pulls = new ScriptedPullRecords();
  private final ScriptedChangeStream stream = ScriptedChangeStream.of(List.of());
  @RegisterExtension
  final WorkflowTestExtension servers = WorkflowTestExtension.serversOnly();
  private final WorkerEnvironment flow = servers.start(WorkerEnvironment.builder().interceptors(pulls.interceptor()))
      .startWorker(Fixtures.peers(), Fixtures.inMemoryPorts(new InMemoryDestination(), new InMemoryCatalog(), stream));
  private final ScriptedSnapshotSource database = new ScriptedSnapshotSource(7).createCollection("orders");
  /** The peer each sample was read through: the CLI resolves the mirror's source peer itself. */
  private final List<String> resolvedPeers = new ArrayList<>();
  private volatile boolean failReads;

  record Run(int exitCode, String out, String err) {}

  private Run run(PortsFactory ports, Map<String, String> environment, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = MongoCdc.commandLine(new CliContext(temporal -> flow.client, ports, environment, stop -> stop.run()))
        .setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private Run run(String... args) {
    return run((catalogUrl, peers, sinkOptions) -> TestPorts.inMemory().source(scripted(peers)).build(),
        Map.of(ConfiguredPeerRegistry.ENV_PREFIX + "ORDERS_MONGO", Fixtures.SOURCE_URI), args);
  }

  /** The scripted source, whose database is {@link #database}. */
  private MirrorSourceFactory scripted(PeerRegistry peers) {
    return ScriptedSource.builder().peers(peers).stream(stream).now(Fixtures.BEFORE_EVENTS).snapshots(mirror -> {
      String uri = peers.resolve(mirror.sourcePeer()).connectionString();
      resolvedPeers.add(mirror.sourcePeer());
      if (failReads) {
        // As a driver may: the connection string in the message.
        throw new IllegalStateException("Timed out while waiting for a server at " + uri);
      }
      return database;
    }).build();
  }

  private CdcFlowWorkflow createMirror(String sourcePeer, String database, String... collections)
      throws InterruptedException {
    List<String> args = new ArrayList<>(List.of("mirror", "create", "orders", "--source-peer", sourcePeer,
        "--destination-peer", "warehouse-pg", "--database", database));
    for (String collection : collections) {
      args.add("--collection");
      args.add(collection);
    }
    Run created = run(args.toArray(String[]::new));
    assertEquals(0, created.exitCode(), created.err());
    pulls.nextCall();
    return flow.client.newWorkflowStub(CdcFlowWorkflow.class, "mirror-orders");
  }

  /** 40 orders: status a string (one null), total int or double, tags strings, customer a document. */
  private void putOrders() {
    for (int i = 0; i < 40; i++) {
      BsonDocument order = new BsonDocument("_id", new BsonInt32(i))
          .append("status", i == 0 ? BsonNull.VALUE : new BsonString("paid"))
          .append("total", i % 4 == 0 ? new BsonInt32(10) : new BsonDouble(10.5))
          .append("createdAt", new BsonDateTime(1_700_000_000_000L + i))
          .append("tags", new BsonArray(List.of(new BsonString("a"))))
          .append("customer", new BsonDocument("name", new BsonString("Zoë")).append("visits", new BsonInt64(i)));
      if (i % 2 == 0) {
        order.append("doc", new BsonString("a field named like the table's column"));
      }
      database.put("orders", order);
    }
  }

  @Test
  void printsTheTableAndTheOptionToPaste() throws Exception {
    CdcFlowWorkflow workflow = createMirror("orders-mongo", "shop", "orders");
    MirrorConfig before = workflow.status().config();
    putOrders();

    Run suggested = run("mirror", "suggest-columns", "orders", "--collection", "orders", "--sample-size", "40");

    assertEquals(0, suggested.exitCode(), suggested.err());
    assertEquals("""
        mirror orders: shop.orders, 40 documents sampled of about 40
        path             present  types seen             column           type              note
        status              100%  string 98%, null 3%    status           text
        total               100%  double 75%, int 25%    total            double precision  whole numbers and doubles
        createdAt           100%  date 100%              created_at       timestamptz
        tags                100%  array of strings 100%  tags             text[]
        customer            100%  object 100%            -                -                 a document: its fields follow
        customer.name       100%  string 100%            customer_name    text
        customer.visits     100%  long 100%              customer_visits  bigint
        doc                  50%  string 100%            doc_2            text
        paste into 'mongo-cdc mirror create' or 'mirror edit' (review it first; --format json writes a --columns-file):
          --columns 'orders:status=text:status,total=double precision:total,created_at=timestamptz:createdAt,\
        tags=text[]:tags,customer_name=text:customer.name,customer_visits=bigint:customer.visits,doc_2=text:doc'
        """, suggested.out());
    assertEquals(List.of("orders-mongo"), resolvedPeers, "read through the mirror's source peer");
    assertFalse(suggested.out().contains(Fixtures.SOURCE_PASSWORD));
    assertEquals(before, workflow.status().config(), "the mirror is not changed");
  }

  @Test
  void theJsonFormatIsAColumnsFile() throws Exception {
    createMirror("orders-mongo", "shop", "orders");
    putOrders();

    Run json = run("mirror", "suggest-columns", "orders", "--collection", "orders", "--format", "json", "--max-depth", "1");

    assertEquals(0, json.exitCode(), json.err());
    JsonNode file = new ObjectMapper().readTree(json.out());
    assertEquals(1, file.size());
    assertTrue(file.has("orders"), json.out());
    JsonNode columns = file.get("orders");
    assertEquals(6, columns.size(), json.out());
    assertEquals("{\"name\":\"status\",\"type\":\"text\",\"path\":\"status\"}", columns.get(0).toString());
    assertEquals("{\"name\":\"customer\",\"type\":\"jsonb\",\"path\":\"customer\"}", columns.get(4).toString(),
        "at --max-depth 1 a document is one column");
  }

  @Test
  void badRequestsFailWithOneLineEach() throws Exception {
    createMirror("orders-mongo", "shop", "orders");

    Run tooLarge = run("mirror", "suggest-columns", "orders", "--collection", "orders", "--sample-size", "10001");
    assertEquals(ExitCodes.INVALID, tooLarge.exitCode());
    assertEquals("mongo-cdc: mirror 'orders': --sample-size must be from 1 to 10000 (a bounded $sample keeps the"
        + " read cheap on the source), got 10001", tooLarge.err().strip());

    Run otherCollection = run("mirror", "suggest-columns", "orders", "--collection", "users");
    assertEquals(ExitCodes.INVALID, otherCollection.exitCode());
    assertEquals("mongo-cdc: mirror orders replicates orders, not users", otherCollection.err().strip());

    Run empty = run("mirror", "suggest-columns", "orders", "--collection", "orders");
    assertEquals(ExitCodes.NOT_FOUND, empty.exitCode());
    assertEquals("mongo-cdc: collection shop.orders has no documents to sample", empty.err().strip());

    Run unknownPeer = run((catalogUrl, peers, sinkOptions) -> TestPorts.inMemory().source(scripted(peers)).build(), Map.of(),
        "mirror", "suggest-columns", "orders", "--collection", "orders");
    assertEquals(ExitCodes.INVALID, unknownPeer.exitCode());
    assertEquals("mongo-cdc: suggest-columns reads the mirror's source from this machine, which does not know its"
        + " peer: unknown peer 'orders-mongo': configure it in --peers-file or as MONGO_CDC_PEER_ORDERS_MONGO",
        unknownPeer.err().strip());

    Run noMirror = run("mirror", "suggest-columns", "nope", "--collection", "orders");
    assertEquals(ExitCodes.NOT_FOUND, noMirror.exitCode(), noMirror.err());
  }

  @Test
  void readsAGeneratorPeerThroughTheProductionSources() throws Exception {
    // The worker's peer is the scripted MongoDB; the CLI's environment says the same peer is a generator.
    createMirror("orders-mongo", "shop");
    Map<String, String> environment = Map.of(ConfiguredPeerRegistry.ENV_PREFIX + "ORDERS_MONGO",
        "generator:shop?seed=7&initialDocuments=300");

    Run suggested = run(new ProductionPorts(), environment,
        "mirror", "suggest-columns", "orders", "--collection", "orders", "--sample-size", "200");

    assertEquals(0, suggested.exitCode(), suggested.err());
    assertTrue(suggested.out().startsWith("mirror orders: shop.orders, 200 documents sampled of about 300\n"),
        suggested.out());
    String option = suggested.out().lines().filter(l -> l.startsWith("  --columns ")).findFirst().orElseThrow();
    for (String column : List.of("order_number=bigint:orderNumber", "status=text:status",
        "created_at=timestamptz:createdAt", "customer_id=text:customer.id", "customer_address_city=text:customer.address.city",
        "customer_address_geo=jsonb:customer.address.geo", "items=jsonb:items", "total=numeric:total",
        "paid=boolean:paid", "note=text:note")) {
      assertTrue(option.contains(column), () -> column + " in " + option);
    }
  }

  @Test
  void aFailedReadIsOneLineWithoutTheSourcesPassword() throws Exception {
    createMirror("orders-mongo", "shop", "orders");
    failReads = true;

    Run failed = run("mirror", "suggest-columns", "orders", "--collection", "orders");

    assertEquals(ExitCodes.FAILED, failed.exitCode());
    assertTrue(failed.err().startsWith("mongo-cdc: mirror 'orders': Timed out while waiting for a server at mongodb://"),
        failed.err());
    assertEquals(1, failed.err().strip().lines().count(), failed.err());
    assertFalse(failed.err().contains(Fixtures.SOURCE_PASSWORD), failed.err());
    assertEquals("", failed.out());
  }
}
