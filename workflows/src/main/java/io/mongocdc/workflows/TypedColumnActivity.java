package io.mongocdc.workflows;

import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The typed columns' work outside batches: columns added (and filled) or dropped, and their indexes. */
@ActivityInterface
public interface TypedColumnActivity {

  /**
   * Adds the mirror's missing typed columns to its tables, drops the columns the request names,
   * and fills every column a row does not hold yet from the row's {@code doc}, in short
   * transactions, heartbeating; idempotent. One call fills a bounded slice of rows and says
   * where the next goes on, so batches run between slices.
   */
  @ActivityMethod(name = ActivityNames.ALIGN_TYPED_COLUMNS)
  TypedColumnsAligned alignTypedColumns(TypedColumnsRequest request);

  /** Creates the mirror's declared indexes concurrently, if missing. @return indexes created */
  @ActivityMethod(name = ActivityNames.CREATE_TYPED_COLUMN_INDEXES)
  int createTypedColumnIndexes(MirrorConfig mirror);
}
