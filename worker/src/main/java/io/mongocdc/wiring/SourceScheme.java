package io.mongocdc.wiring;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import java.util.List;
import java.util.ServiceLoader;

/**
 * A kind of source peer a worker serves besides MongoDB, told apart by the scheme of the peer's
 * connection string ({@code scheme:...}). Implementations register as a {@link ServiceLoader}
 * service, so the worker's wiring serves every scheme on its class path without naming it.
 */
public interface SourceScheme {

  /** The scheme, without the colon; compared ignoring case. */
  String scheme();

  /** The source port for this scheme's peers, which it resolves through {@code peers}. */
  MirrorSourceFactory sources(PeerRegistry peers);

  /** The schemes registered on the class path. */
  static List<SourceScheme> installed() {
    return ServiceLoader.load(SourceScheme.class).stream().map(ServiceLoader.Provider::get).toList();
  }
}
