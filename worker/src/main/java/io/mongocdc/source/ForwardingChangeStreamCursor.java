package io.mongocdc.source;

import org.bson.RawBsonDocument;

/**
 * A cursor that hands every call to another one: the base of cursors that change one behaviour
 * of a stream (filter its events, keep its generator when closed, wait like a server) and
 * forward the rest unchanged.
 */
public abstract class ForwardingChangeStreamCursor implements ChangeStreamCursor {

  protected final ChangeStreamCursor delegate;

  protected ForwardingChangeStreamCursor(ChangeStreamCursor delegate) {
    this.delegate = delegate;
  }

  @Override
  public RawBsonDocument tryNext() throws InterruptedException {
    return delegate.tryNext();
  }

  @Override
  public boolean eventReady() {
    return delegate.eventReady();
  }

  @Override
  public ResumeToken postBatchResumeToken() {
    return delegate.postBatchResumeToken();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
