package io.mongocdc.cli;

import io.mongocdc.ports.ConfiguredPeerRegistry;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** Where a command finds the peers' connection strings: the peers file and the environment. */
final class PeersOptions {

  @Option(names = "--peers-file", paramLabel = "FILE", defaultValue = "${env:MONGO_CDC_PEERS_FILE}",
      description = "Properties file of peers: <peer>.uri=<connection string> (env MONGO_CDC_PEERS_FILE). "
          + "MONGO_CDC_PEER_<PEER> environment variables override it.")
  Path peersFile;

  /** The peers of the file, if any, and of {@code environment}. */
  ConfiguredPeerRegistry registry(Map<String, String> environment) {
    return ConfiguredPeerRegistry.load(peersFile, environment);
  }
}
