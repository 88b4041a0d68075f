package io.mongocdc.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The catalog and the peers, for mirror commands that act on them directly rather than through the workflow. */
final class CatalogAccessOptions {

  @Option(names = "--catalog-url", paramLabel = "JDBC_URL", defaultValue = "${env:MONGO_CDC_CATALOG_URL}",
      description = "Catalog database (env MONGO_CDC_CATALOG_URL).")
  String catalogUrl;

  /** To reach the destination. */
  @Mixin PeersOptions peers;

  /** The catalog URL; fails naming {@code what} needs it when none is given. */
  String requireCatalogUrl(String what) {
    if (catalogUrl == null || catalogUrl.isBlank()) {
      throw new CliException(what + " needs the catalog: give --catalog-url or set MONGO_CDC_CATALOG_URL",
          ExitCodes.INVALID);
    }
    return catalogUrl;
  }
}
