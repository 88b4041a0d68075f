-- Events of types the mirror does not apply (issue 33): under unknownEventPolicy SKIP, or of a type
-- excludedOperations names, the checkpoint passes over them; each batch records how many of each type.
alter table mongo_cdc.batches add column events_skipped jsonb;

comment on column mongo_cdc.batches.events_skipped is
  'Events the batch passed over, by operationType ({"createIndexes": 2}): types the mirror does not know under unknownEventPolicy SKIP, or excluded types the decoder met; NULL when none or unknown.';
