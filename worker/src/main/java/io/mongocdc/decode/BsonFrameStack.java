package io.mongocdc.decode;

import java.util.Arrays;

/**
 * The open documents and arrays while the transcoder walks BSON bytes. An explicit stack
 * instead of recursion, so nesting depth is bounded by memory rather than by the thread's
 * stack: a corrupt or hostile document cannot cause a StackOverflowError. Reused per thread.
 */
final class BsonFrameStack {

  static final byte DOCUMENT = 0;
  static final byte ARRAY = 1;
  /** The scope document of a code-with-scope value; closing it also closes the wrapper. */
  static final byte SCOPE = 2;

  private int[] terminators = new int[16];
  private int[] keyOffsets = new int[16];
  private byte[] kinds = new byte[16];
  private int depth;

  void clear() {
    depth = 0;
  }

  int depth() {
    return depth;
  }

  /**
   * Opens a frame.
   *
   * @param terminator offset of the frame's trailing 0x00 byte
   * @param keyOffset offset of the name of the element holding this frame (-1 at the top)
   */
  void push(int terminator, int keyOffset, byte kind) {
    if (depth == terminators.length) {
      terminators = Arrays.copyOf(terminators, depth * 2);
      keyOffsets = Arrays.copyOf(keyOffsets, depth * 2);
      kinds = Arrays.copyOf(kinds, depth * 2);
    }
    terminators[depth] = terminator;
    keyOffsets[depth] = keyOffset;
    kinds[depth] = kind;
    depth++;
  }

  void pop() {
    depth--;
  }

  int terminator() {
    return terminators[depth - 1];
  }

  byte kind() {
    return kinds[depth - 1];
  }

  /** The name offset of the element that opened frame {@code level} (0 = top). */
  int keyOffsetAt(int level) {
    return keyOffsets[level];
  }
}
