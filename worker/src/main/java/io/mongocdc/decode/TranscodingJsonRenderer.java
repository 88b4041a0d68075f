package io.mongocdc.decode;

import java.util.Objects;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;

/**
 * The {@link DocumentRenderer} the pipeline uses: renders a raw document with the
 * {@link BsonJsonTranscoder} into a per-thread reusable buffer.
 *
 * <p>Thread-safe: each decode thread gets its own buffer, so rendering allocates only the
 * result. A buffer that grew past {@value #RETAINED_CAPACITY} bytes for one huge document is
 * dropped after use, so a single 16 MB document does not pin 16 MB per thread for good.
 */
public final class TranscodingJsonRenderer implements DocumentRenderer {

  static final int RETAINED_CAPACITY = 1 << 20;
  private static final int INITIAL_CAPACITY = 8 * 1024;

  private final BsonJsonTranscoder transcoder;
  private final ThreadLocal<Workspace> workspaces = ThreadLocal.withInitial(Workspace::new);

  public TranscodingJsonRenderer(JsonRenderMode mode) {
    this.transcoder = new BsonJsonTranscoder(Objects.requireNonNull(mode, "mode"));
  }

  /** Relaxed Extended JSON v2, the default {@code doc} format. */
  public static TranscodingJsonRenderer relaxed() {
    return new TranscodingJsonRenderer(JsonRenderMode.RELAXED);
  }

  /** Plain JSON for analysts (see {@link JsonRenderMode#SIMPLIFIED}). */
  public static TranscodingJsonRenderer simplified() {
    return new TranscodingJsonRenderer(JsonRenderMode.SIMPLIFIED);
  }

  public JsonRenderMode mode() {
    return transcoder.mode();
  }

  @Override
  public String render(RawBsonDocument document) {
    Workspace workspace = workspaces.get();
    try {
      transcode(document, workspace);
      return workspace.out.toUtf8String();
    } finally {
      release(workspace);
    }
  }

  /** The same JSON as {@link #render}, as UTF-8 bytes, without building a String. */
  public byte[] renderUtf8(RawBsonDocument document) {
    Workspace workspace = workspaces.get();
    try {
      transcode(document, workspace);
      return workspace.out.toByteArray();
    } finally {
      release(workspace);
    }
  }

  /** Renders the BSON document in {@code bson[offset, offset + length)}. */
  public String render(byte[] bson, int offset, int length) {
    Workspace workspace = workspaces.get();
    try {
      workspace.out.reset();
      transcoder.transcode(bson, offset, length, workspace.out, workspace.frames);
      return workspace.out.toUtf8String();
    } finally {
      release(workspace);
    }
  }

  private void transcode(RawBsonDocument document, Workspace workspace) {
    workspace.out.reset();
    ByteBuf buffer = document.getByteBuffer();
    try {
      int length = buffer.remaining();
      if (buffer.isBackedByArray()) {
        // A RawBsonDocument (also one nested in another) wraps a slice of its byte array:
        // read it in place.
        transcoder.transcode(
            buffer.array(), buffer.arrayOffset() + buffer.position(), length, workspace.out, workspace.frames);
      } else {
        byte[] copy = new byte[length];
        buffer.get(copy);
        transcoder.transcode(copy, 0, length, workspace.out, workspace.frames);
      }
    } finally {
      buffer.release();
    }
  }

  private void release(Workspace workspace) {
    if (workspace.out.capacity() > RETAINED_CAPACITY) {
      workspaces.remove();
    }
  }

  /** One thread's reusable output buffer and frame stack. */
  private static final class Workspace {
    final Utf8JsonOutput out = new Utf8JsonOutput(INITIAL_CAPACITY);
    final BsonFrameStack frames = new BsonFrameStack();
  }
}
