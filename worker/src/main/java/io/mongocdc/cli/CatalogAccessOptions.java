package io.mongocdc.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The catalog and the peers, for mirror commands that act on them directly rather than through the workflow. */
final class CatalogAccessOptions {

  @Option(names = "--catalog-url", paramLabel = "JDBC_URL", defaultValue = "${env:MONGO_CDC_CATALOG_URL}",
      description = "Catalog database (env MONGO_CDC_CATALOG_URL).")
  String catalogUrl;

  @Option(names = "--peers-file", paramLabel = "FILE", defaultValue = "${env:MONGO_CDC_PEERS_FILE}",
      description = "Peers, to reach the destination (env MONGO_CDC_PEERS_FILE).")
  Path peersFile;

  /** The catalog URL; fails naming {@code what} needs it when none is given. */
  String requireCatalogUrl(String what) {
    if (catalogUrl == null || catalogUrl.isBlank()) {
      throw new CliException(what + " needs the catalog: give --catalog-url or set MONGO_CDC_CATALOG_URL",
          ExitCodes.INVALID);
    }
    return catalogUrl;
  }
}
