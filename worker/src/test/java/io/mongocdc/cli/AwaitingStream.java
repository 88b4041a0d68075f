package io.mongocdc.cli;

import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ForwardingChangeStreamCursor;
import io.mongocdc.source.StreamPosition;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.bson.RawBsonDocument;

/**
 * A scripted stream whose empty polls take a little real time, as a server's await time does,
 * so a worker running on the real clock does not spin on an idle stream.
 */
final class AwaitingStream implements ChangeStreamOpener {

  private static final Duration AWAIT = Duration.ofMillis(20);

  private final ChangeStreamOpener delegate;

  AwaitingStream(ChangeStreamOpener delegate) {
    this.delegate = delegate;
  }

  @Override
  public ChangeStreamCursor open(StreamPosition position) {
    return new ForwardingChangeStreamCursor(delegate.open(position)) {
      @Override
      public RawBsonDocument tryNext() throws InterruptedException {
        RawBsonDocument event = super.tryNext();
        if (event == null) {
          LockSupport.parkNanos(AWAIT.toNanos()); // the server's await time, not an ordering wait
          if (Thread.interrupted()) {
            throw new InterruptedException();
          }
        }
        return event;
      }
    };
  }
}
