package io.mongocdc.devtools.generator;

import io.mongocdc.snapshot.BsonIdOrder;
import io.mongocdc.snapshot.IdTypeBracket;
import org.bson.BsonValue;

/**
 * The key numbers {@code 0 .. limit-1} of a generated collection in the order the server sorts
 * their {@code _id}s, walked without listing them: int32 keys in numeric order; text keys (a
 * prefix, then the number in decimal) in the order of their decimal text, {@code 0, 1, 10, 100,
 * ..., 11, ..., 2, ...}, which is a walk of the trie of decimal numbers below the limit.
 */
final class KeyOrder {

  private KeyOrder() {}

  /** The first key below {@code limit}, or -1 if there is none. */
  static long first(long limit) {
    return limit > 0 ? 0 : -1;
  }

  /** The key after {@code key} among those below {@code limit}, or -1 after the last. */
  static long next(CollectionFormat format, long key, long limit) {
    if (!format.textKeys()) {
      return key + 1 < limit ? key + 1 : -1;
    }
    if (key == 0) {
      // "0" has no longer numbers under it: none starts with a zero.
      return limit > 1 ? 1 : -1;
    }
    if (key * 10 < limit) {
      return key * 10;
    }
    while (key % 10 == 9 || key + 1 >= limit) {
      key /= 10;
      if (key == 0) {
        return -1;
      }
    }
    return key + 1;
  }

  /** The first key below {@code limit} whose {@code _id} is at or after {@code bound}, or -1. */
  static long seek(CollectionFormat format, BsonValue bound, long limit) {
    IdTypeBracket keys = format.textKeys() ? IdTypeBracket.STRING : IdTypeBracket.NUMBER;
    int byBracket = Integer.compare(IdTypeBracket.of(bound).ordinal(), keys.ordinal());
    if (byBracket != 0) {
      return byBracket < 0 ? first(limit) : -1;
    }
    if (!format.textKeys()) {
      double value = bound.isDecimal128() ? bound.asDecimal128().doubleValue() : bound.asNumber().doubleValue();
      // From just below the bound, then exactly: a double or decimal bound need not be whole.
      long key = value <= 1 ? 0 : value >= limit ? limit : (long) Math.floor(value) - 1;
      while (key < limit && BsonIdOrder.INSTANCE.compare(format.key((int) key), bound) < 0) {
        key++;
      }
      return key < limit ? key : -1;
    }
    String text = bound.isSymbol() ? bound.asSymbol().getSymbol() : bound.asString().getValue();
    String prefix = format.key(0).asString().getValue();
    prefix = prefix.substring(0, prefix.length() - 1);
    if (text.startsWith(prefix)) {
      return seekText(-1, text.substring(prefix.length()), 0, limit);
    }
    return text.compareTo(prefix) < 0 ? first(limit) : -1;
  }

  /**
   * The first number below {@code limit} whose decimal text is at or after {@code text}, among
   * those under {@code node} (-1: the root), whose text is {@code text}'s first {@code at}
   * characters; -1 if none is.
   */
  private static long seekText(long node, String text, int at, long limit) {
    if (at == text.length()) {
      // The node's own text equals the bound; the root's empty text precedes every number.
      return node >= 0 ? node : first(limit);
    }
    char c = text.charAt(at);
    if (c >= '0' && c <= '9') {
      long child = child(node, c - '0', limit);
      if (child >= 0) {
        long found = seekText(child, text, at + 1, limit);
        if (found >= 0) {
          return found;
        }
      }
    }
    // A later digit's subtree is wholly after the bound; its first number is the digit's node.
    for (int digit = c < '0' ? 0 : c > '9' ? 10 : c - '0' + 1; digit <= 9; digit++) {
      long child = child(node, digit, limit);
      if (child >= 0) {
        return child;
      }
    }
    return -1;
  }

  private static long child(long node, int digit, long limit) {
    long child = node < 0 ? digit : node == 0 ? -1 : node * 10 + digit;
    return child >= 0 && child < limit ? child : -1;
  }
}
