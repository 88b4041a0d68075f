package io.mongocdc.devtools;

import io.mongocdc.devtools.generator.GeneratorMirrorSourceFactory;
import io.mongocdc.devtools.generator.GeneratorUri;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.wiring.SourceScheme;

/**
 * Registers the load generator with a worker's wiring: a source peer whose connection string is a
 * {@link GeneratorUri} ({@code generator:...}) is served by the generator instead of a MongoDB.
 */
public final class GeneratorSourceScheme implements SourceScheme {

  @Override
  public String scheme() {
    return GeneratorUri.SCHEME;
  }

  @Override
  public MirrorSourceFactory sources(PeerRegistry peers) {
    return new GeneratorMirrorSourceFactory(peers);
  }
}
