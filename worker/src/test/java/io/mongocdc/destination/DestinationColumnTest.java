package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.workflows.model.TypedColumn;
import java.util.List;
import org.junit.jupiter.api.Test;

class DestinationColumnTest {

  @Test
  void theNamesTypedColumnsMayNotTakeAreTheStateTablesOwnColumns() {
    // TypedColumn (workflow code) cannot see the destination package, so it keeps its own list.
    assertEquals(DestinationColumn.reservedInStateTable(), TypedColumn.TABLE_COLUMNS);
  }

  @Test
  void definitionsQuoteTheNameBeforeTheType() {
    assertEquals("\"_id\" text collate \"C\" not null, \"doc\" jsonb, \"updateDescription\" jsonb",
        DestinationColumn.definitions(
            List.of(DestinationColumn.ID, DestinationColumn.DOC, DestinationColumn.UPDATE_DESCRIPTION)));
  }
}
