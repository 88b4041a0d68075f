-- Issue 47: an attempt lost with its worker (kill -9, heartbeat timed out) left no batch_attempts
-- row, because the row was written only as an attempt failed. Now every PullRecords attempt
-- writes its row when it starts and completes it when it ends (ended_at; failure_type, message
-- and failed_at when it failed). An attempt still open when the mirror's next attempt starts was
-- lost: that start marks it failed with failure_type 'AttemptLost'. Rows of earlier releases have
-- no started_at (unknown).
alter table mongo_cdc.batch_attempts
  add column started_at timestamptz,
  add column ended_at timestamptz;
alter table mongo_cdc.batch_attempts alter column failure_type drop not null;
alter table mongo_cdc.batch_attempts alter column message drop not null;
alter table mongo_cdc.batch_attempts alter column failed_at drop not null;
alter table mongo_cdc.batch_attempts alter column failed_at drop default;

comment on column mongo_cdc.batch_attempts.started_at is
  'When the attempt started; NULL for rows written before attempts were recorded at their start.';
comment on column mongo_cdc.batch_attempts.ended_at is
  'When the attempt ended (delivered its batch or failed); NULL while it runs, or when it was lost with its worker.';
comment on column mongo_cdc.batch_attempts.failed_at is
  'When the attempt failed (or, for AttemptLost, when the next attempt found it lost); NULL for an attempt that runs or succeeded.';

-- [jooq ignore start]
create index batch_attempts_open_idx on mongo_cdc.batch_attempts (mirror_name) where ended_at is null and failed_at is null;
-- [jooq ignore stop]
