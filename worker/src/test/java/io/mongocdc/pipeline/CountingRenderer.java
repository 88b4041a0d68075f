package io.mongocdc.pipeline;

import io.mongocdc.decode.DocumentRenderer;
import io.mongocdc.decode.DriverJsonRenderer;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.RawBsonDocument;

/** Counts the documents it renders. */
final class CountingRenderer implements DocumentRenderer {

  final AtomicInteger rendered = new AtomicInteger();
  private final DocumentRenderer delegate;

  CountingRenderer() {
    this(new DriverJsonRenderer());
  }

  CountingRenderer(DocumentRenderer delegate) {
    this.delegate = delegate;
  }

  @Override
  public String render(RawBsonDocument document) {
    rendered.incrementAndGet();
    return delegate.render(document);
  }
}
