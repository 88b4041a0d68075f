-- Change history (issue 21): what each batch appended to the mirror's history tables
-- (<table>_history, in the destination) and what retention (historyRetentionDays) pruned from
-- them after the batch. Null in rows recorded before V8 (unknown); 0 for a mirror without history.
alter table mongo_cdc.batches add column history_rows bigint;
alter table mongo_cdc.batches add column history_pruned bigint;
