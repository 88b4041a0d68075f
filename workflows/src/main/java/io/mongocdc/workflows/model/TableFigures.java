package io.mongocdc.workflows.model;

/**
 * What one batch delivered to one destination table.
 *
 * @param sourceNamespace the namespace ({@code db.collection}) the table's records come from
 * @param inserts insert records applied
 * @param updates update records applied
 * @param replaces replace records applied
 * @param deletes delete records applied
 * @param bytes raw change-event bytes of those records
 */
public record TableFigures(String sourceNamespace, long inserts, long updates, long replaces, long deletes, long bytes) {

  /** Records applied, over every operation. */
  public long records() {
    return inserts + updates + replaces + deletes;
  }

  /** Both counts added up, under this one's namespace. */
  public TableFigures plus(TableFigures other) {
    return new TableFigures(sourceNamespace,
        inserts + other.inserts, updates + other.updates, replaces + other.replaces, deletes + other.deletes,
        bytes + other.bytes);
  }
}
