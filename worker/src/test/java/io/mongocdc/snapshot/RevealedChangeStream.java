package io.mongocdc.snapshot;

import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.bson.RawBsonDocument;

/**
 * A change stream over a fixed list of events of which a test reveals a growing prefix, watched
 * with a filter on collections as MongoDB's {@code $match} on {@code ns} does: filtered events are
 * not returned, but the post-batch resume token moves past them. No collections means every
 * collection (a mirror of the whole database).
 */
public final class RevealedChangeStream {

  private static final long AWAIT_NANOS = 2_000_000;

  private final List<RawBsonDocument> events;
  private final AtomicInteger revealed = new AtomicInteger();

  public RevealedChangeStream(List<RawBsonDocument> events) {
    this.events = List.copyOf(events);
  }

  /** Makes the first {@code count} events visible. */
  public void reveal(int count) {
    revealed.set(count);
  }

  public ResumeToken tokenOf(int index) {
    return ResumeToken.ofEvent(events.get(index));
  }

  /** Whether {@code status}'s committed checkpoint has passed event {@code index}. */
  public boolean deliveredThrough(io.mongocdc.workflows.model.MirrorStatus status, int index) {
    return status.committedCheckpoint() != null && status.committedCheckpoint().resumeToken() != null
        && ResumeToken.of(status.committedCheckpoint().resumeToken()).compareTo(tokenOf(index)) >= 0;
  }

  /** The stream as a mirror of these collections sees it. */
  public ChangeStreamOpener watching(Set<String> collections) {
    return position -> new Cursor(firstAfter(position), position.tokenOrNull(), collections);
  }

  private int firstAfter(StreamPosition position) {
    for (int i = 0; i < events.size(); i++) {
      ResumeToken token = ResumeToken.ofEvent(events.get(i));
      boolean after = position instanceof StreamPosition.AfterToken at
          ? token.isAfter(at.token())
          : token.clusterTime().compareTo(position.clusterTime()) >= 0;
      if (after) {
        return i;
      }
    }
    return events.size();
  }

  private final class Cursor implements ChangeStreamCursor {
    private int next;
    private ResumeToken postBatch;
    private final Set<String> collections;

    Cursor(int start, ResumeToken startToken, Set<String> collections) {
      this.next = start;
      this.postBatch = startToken;
      this.collections = collections;
    }

    @Override
    public RawBsonDocument tryNext() {
      while (next < revealed.get()) {
        RawBsonDocument event = events.get(next++);
        postBatch = ResumeToken.ofEvent(event);
        if (collections.isEmpty() || collections.contains(event.getDocument("ns").getString("coll").getValue())) {
          return event;
        }
      }
      // A server waits up to maxAwaitTime before an empty answer; this keeps an idle reader from spinning.
      LockSupport.parkNanos(AWAIT_NANOS);
      return null;
    }

    @Override
    public ResumeToken postBatchResumeToken() {
      return postBatch;
    }

    @Override
    public void close() {}
  }
}
