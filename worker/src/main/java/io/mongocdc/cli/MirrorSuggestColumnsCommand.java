package io.mongocdc.cli;

import io.mongocdc.privacy.FieldRedactor;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.workflows.model.FieldRules;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.UnknownPeerException;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.suggest.ColumnSuggestions;
import io.mongocdc.suggest.ColumnsOptionText;
import io.mongocdc.suggest.DocumentSample;
import io.mongocdc.suggest.SampleLimits;
import io.mongocdc.suggest.SuggestedColumn;
import io.mongocdc.suggest.ValueKind;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.TypedColumn;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "suggest-columns", mixinStandardHelpOptions = true,
    description = {"Propose typed columns for one of the mirror's collections from a bounded random sample of its "
        + "documents ($sample on the mirror's source): per dotted path the kinds of value seen with their shares, "
        + "a column name and a PostgreSQL type, then the --columns option to paste into 'mongo-cdc mirror create' "
        + "or 'mirror edit'.",
        "Reads the source only (the peer's connection string from the peers file or MONGO_CDC_PEER_<PEER>); never "
            + "changes the mirror."})
final class MirrorSuggestColumnsCommand extends MirrorSubcommand {

  private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

  /** How long the source may spend on the sample before the server gives it up ({@code maxTimeMS}). */
  static final Duration MAX_TIME = Duration.ofSeconds(30);

  enum Format { option, json }

  @Option(names = "--collection", required = true, paramLabel = "NAME", description = "The collection to sample.")
  String collection;

  @Option(names = "--sample-size", paramLabel = "N", defaultValue = "" + SampleLimits.DEFAULT_SAMPLE_SIZE,
      description = "Documents to sample, 1 to " + SampleLimits.MAX_SAMPLE_SIZE + " (default: ${DEFAULT-VALUE}).")
  int sampleSize;

  @Option(names = "--max-depth", paramLabel = "D", defaultValue = "" + SampleLimits.DEFAULT_MAX_DEPTH,
      description = "Path segments to walk into, 1 to " + SampleLimits.MAX_DEPTH + "; a document deeper down is "
          + "proposed as one jsonb column (default: ${DEFAULT-VALUE}).")
  int maxDepth;

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "option",
      description = "option: the table and the --columns option (default); json: only the JSON of a "
          + "--columns-file, to redirect to one.")
  Format format;

  /** To reach the source. */
  @Mixin PeersOptions peers;

  MirrorSuggestColumnsCommand(CliContext context) {
    super(context);
  }

  /**
   * The collection's field rules, so the sample sees what the destination holds: no excluded
   * path, and a hashed one as the string it is there. Only kinds of values are shown, never a
   * value, so a key made here for the call does as well as the workers'.
   */
  private FieldRedactor sampleRules(MirrorConfig config) {
    FieldRules rules = config.settings().fieldRules().of(collection);
    if (rules.isEmpty()) {
      return null;
    }
    return FieldRedactor.of(rules, HashKey.random("a key for the sample"));
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) throws Exception {
    SampleLimits limits = new SampleLimits(sampleSize, maxDepth);
    // The configuration in effect says which source peer and database the mirror reads.
    MirrorConfig config = mirror.workflow(client).status().config();
    if (!config.collections().isEmpty() && !config.collections().contains(collection)) {
      throw new CliException("mirror " + mirror.name + " replicates " + String.join(", ", config.collections())
          + ", not " + collection, ExitCodes.INVALID);
    }
    DocumentSample sample = new DocumentSample(limits);
    long estimated;
    MirrorSourceFactory sources = context.ports().sources(peers.registry(context.environment()));
    try (SnapshotSource source = sources.snapshotSource(config)) {
      estimated = source.estimatedCount(collection);
      FieldRedactor rules = sampleRules(config);
      source.sampleDocuments(collection, limits.sampleSize(), MAX_TIME, rules == null ? sample::add
          : document -> sample.add(rules.document(new RawBsonDocument(document, CODEC)).decode(CODEC)));
    } catch (UnknownPeerException unknown) {
      // Unlike the other commands, this one reads the source from here, not on a worker.
      throw new CliException("suggest-columns reads the mirror's source from this machine, which does not know its"
          + " peer: " + unknown.getMessage().replace("the worker's peers file", "--peers-file"), ExitCodes.INVALID);
    } finally {
      if (sources instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
    if (sample.documents() == 0) {
      throw new CliException("collection " + config.sourceDatabase() + "." + collection
          + " has no documents to sample", ExitCodes.NOT_FOUND);
    }
    ColumnSuggestions suggestions = sample.suggestions(collection, TypedColumn.RESERVED);
    if (format == Format.json) {
      out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
          .writeValueAsString(ColumnsOptionText.file(suggestions)));
    } else {
      print(mirror.name, config.sourceDatabase(), estimated, suggestions, out);
    }
  }

  static void print(String mirror, String database, long estimated, ColumnSuggestions suggestions, PrintWriter out) {
    out.printf("mirror %s: %s.%s, %,d documents sampled of about %,d%n", mirror, database, suggestions.collection(),
        suggestions.documents(), estimated);
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"path", "present", "types seen", "column", "type", "note"});
    for (SuggestedColumn column : suggestions.paths()) {
      rows.add(new String[] {column.path(), share(column.present(), suggestions.documents()),
          kinds(column.kinds(), column.present()), column.proposed() ? column.name() : "-",
          column.proposed() ? column.type() : "-", column.note() == null ? "" : column.note()});
    }
    int[] widths = new int[5];
    for (String[] row : rows) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < widths.length; i++) {
        String cell = i == 1 ? " ".repeat(widths[i] - row[i].length()) + row[i] : row[i] + " ".repeat(widths[i] - row[i].length());
        line.append(cell).append("  ");
      }
      out.println((line + row[5]).stripTrailing());
    }
    suggestions.notes().forEach(note -> out.printf("note: %s%n", note));
    List<SuggestedColumn> left = ColumnsOptionText.inexpressible(suggestions);
    if (!left.isEmpty()) {
      out.printf("note: %d proposed columns have a ',', ':' or '=' in their path or collection, which the option"
          + " cannot hold; --format json has them%n", left.size());
    }
    String value = ColumnsOptionText.value(suggestions);
    if (value == null) {
      out.println("no column to propose in the option");
      return;
    }
    out.println("paste into 'mongo-cdc mirror create' or 'mirror edit' (review it first; --format json writes a"
        + " --columns-file):");
    out.println("  " + ColumnsOptionText.commandLine(value));
  }

  /** {@code string 98%, null 2%}. */
  private static String kinds(Map<ValueKind, Long> kinds, long present) {
    List<String> parts = new ArrayList<>(kinds.size());
    kinds.forEach((kind, count) -> parts.add(kind.label() + " " + share(count, present)));
    return String.join(", ", parts);
  }

  /** A whole percentage, never rounded to 0% or 100% when it is not. */
  static String share(long count, long of) {
    if (count == of) {
      return "100%";
    }
    double percent = 100.0 * count / of;
    if (percent < 1) {
      return "<1%";
    }
    if (percent > 99) {
      return ">99%";
    }
    return Math.round(percent) + "%";
  }
}
