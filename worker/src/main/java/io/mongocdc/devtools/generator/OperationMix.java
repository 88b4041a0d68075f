package io.mongocdc.devtools.generator;

import io.mongocdc.decode.Operation;
import java.util.Random;

/** Relative weights of the operations the load generator makes. */
public record OperationMix(int inserts, int updates, int replaces, int deletes) {

  public static final OperationMix DEFAULT = new OperationMix(40, 40, 10, 10);

  public OperationMix {
    if (inserts < 0 || updates < 0 || replaces < 0 || deletes < 0) {
      throw new IllegalArgumentException("operation weights must not be negative: " + this);
    }
    if (inserts == 0) {
      throw new IllegalArgumentException("the insert weight must be positive, or nothing ever exists to change");
    }
  }

  /** Parses {@code insert=40,update=40,replace=10,delete=10}; missing operations weigh 0. */
  public static OperationMix parse(String text) {
    int[] weights = new int[4];
    for (String part : text.split(",")) {
      String[] pair = part.trim().split("=");
      if (pair.length != 2) {
        throw new IllegalArgumentException("operation mix '" + text + "' must look like insert=40,update=40,...");
      }
      Operation op = Operation.fromOperationType(pair[0].trim());
      if (op == null) {
        throw new IllegalArgumentException("unknown operation '" + pair[0].trim()
            + "' in the mix; use insert, update, replace or delete");
      }
      try {
        weights[op.ordinal()] = Integer.parseInt(pair[1].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("weight of " + pair[0].trim() + " must be a whole number, got '"
            + pair[1].trim() + "'");
      }
    }
    return new OperationMix(weights[0], weights[1], weights[2], weights[3]);
  }

  Operation pick(Random random) {
    int roll = random.nextInt(inserts + updates + replaces + deletes);
    if ((roll -= inserts) < 0) {
      return Operation.INSERT;
    }
    if ((roll -= updates) < 0) {
      return Operation.UPDATE;
    }
    return roll - replaces < 0 ? Operation.REPLACE : Operation.DELETE;
  }
}
