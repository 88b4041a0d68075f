-- Stage timings of parallel apply: batches are applied through several destination connections
-- (apply lanes). sink_write_ms and sink_commit_ms keep their meaning summed over lanes /
-- as the sender waited; these two say how long the sender waited for a busy lane and how long
-- the lanes' own commits took, summed over lanes.
alter table mongo_cdc.batches add column apply_back_pressure_ms bigint;
alter table mongo_cdc.batches add column lane_commit_ms bigint;
