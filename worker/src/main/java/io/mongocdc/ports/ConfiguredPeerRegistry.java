package io.mongocdc.ports;

import io.mongocdc.privacy.HashKey;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;

/**
 * Peers from the worker's configuration: a properties file ({@code <peer>.uri=<connection
 * string>}) and/or environment variables ({@code MONGO_CDC_PEER_<PEER>=<connection string>},
 * the peer name upper-cased with '-' and '.' as '_'). The environment wins, so a deployment can
 * keep the file free of passwords and inject them as secrets. The file may also hold the key of
 * the worker's hash field rules ({@value HashKey#PEERS_FILE_KEY}), which {@value
 * HashKey#ENVIRONMENT_VARIABLE} overrides likewise.
 */
public final class ConfiguredPeerRegistry implements PeerRegistry {

  public static final String ENV_PREFIX = "MONGO_CDC_PEER_";

  private final Map<String, String> fromFile;
  private final Map<String, String> environment;
  private final HashKey fieldHashKey;

  public ConfiguredPeerRegistry(Map<String, String> fromFile, Map<String, String> environment) {
    this(fromFile, environment, null);
  }

  private ConfiguredPeerRegistry(Map<String, String> fromFile, Map<String, String> environment, String keyInFile) {
    this.fromFile = Map.copyOf(fromFile);
    this.environment = Map.copyOf(environment);
    this.fieldHashKey = hashKey(environment.get(HashKey.ENVIRONMENT_VARIABLE), keyInFile);
  }

  /** Peers from a properties file (or none if {@code file} is null) and the environment. */
  public static ConfiguredPeerRegistry load(Path file, Map<String, String> environment) {
    Map<String, String> peers = new HashMap<>();
    String keyInFile = null;
    if (file != null) {
      Properties properties = new Properties();
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        properties.load(reader);
      } catch (IOException e) {
        throw new InvalidMirrorConfigurationException("cannot read the peers file " + file.getFileName() + ": " + e.getMessage());
      }
      for (String key : properties.stringPropertyNames()) {
        if (key.equals(HashKey.PEERS_FILE_KEY)) {
          keyInFile = properties.getProperty(key);
          continue;
        }
        if (!key.endsWith(".uri")) {
          throw new InvalidMirrorConfigurationException(
              "peers file: unknown key '" + key + "' (expected <peer>.uri=<connection string>, or "
                  + HashKey.PEERS_FILE_KEY + ")");
        }
        peers.put(key.substring(0, key.length() - ".uri".length()), properties.getProperty(key));
      }
    }
    return new ConfiguredPeerRegistry(peers, environment, keyInFile);
  }

  @Override
  public HashKey fieldHashKey() {
    return fieldHashKey;
  }

  private static HashKey hashKey(String fromEnvironment, String fromFile) {
    try {
      if (fromEnvironment != null && !fromEnvironment.isBlank()) {
        return HashKey.of(fromEnvironment, HashKey.ENVIRONMENT_VARIABLE);
      }
      if (fromFile != null && !fromFile.isBlank()) {
        return HashKey.of(fromFile, "the peers file's " + HashKey.PEERS_FILE_KEY);
      }
      return null;
    } catch (IllegalArgumentException e) {
      throw new InvalidMirrorConfigurationException(e.getMessage());
    }
  }

  @Override
  public Peer resolve(String name) {
    String fromEnvironment = environment.get(environmentVariable(name));
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      return new Peer(name, fromEnvironment);
    }
    String configured = fromFile.get(name);
    if (configured != null && !configured.isBlank()) {
      return new Peer(name, configured);
    }
    throw new UnknownPeerException(name, new TreeSet<>(fromFile.keySet()));
  }

  static String environmentVariable(String peer) {
    return ENV_PREFIX + peer.toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
  }
}
