package io.mongocdc.ports;

/**
 * A mirror would write a destination table that belongs to another mirror. Retrying cannot fix
 * it (it is classified as invalid configuration), and writing would mix two mirrors' rows.
 */
public final class TableOwnedByAnotherMirrorException extends InvalidMirrorConfigurationException {

  private final String mirror;
  private final String owner;
  private final MirrorTable table;

  public TableOwnedByAnotherMirrorException(String mirror, String owner, MirrorTable table) {
    super("destination table " + table.describe() + " belongs to mirror " + owner + "; mirror " + mirror
        + " cannot write it: give mirror " + mirror + " another destination schema, or drop mirror " + owner
        + " with its tables first");
    this.mirror = mirror;
    this.owner = owner;
    this.table = table;
  }

  /** The mirror that was refused. */
  public String mirror() {
    return mirror;
  }

  /** The mirror the table belongs to. */
  public String owner() {
    return owner;
  }

  public MirrorTable table() {
    return table;
  }
}
