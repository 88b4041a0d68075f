-- The view operators read a mirror from: select * from mongo_cdc.mirror_status;
--
-- Its one definition. Flyway runs this repeatable migration after the versioned ones whenever its
-- text changes, so a change to the view is an edit here, never a new versioned migration (V1, V4,
-- V11, V12 and V16 each re-created it before; they stay as applied). It re-creates the view as V16
-- left it, so a catalog migrated before it existed ends with the same view.
--
-- create or replace keeps the existing columns in place: a new column goes at the end; removing or
-- reordering one needs "drop view mongo_cdc.mirror_status;" first. A versioned migration that
-- changes a column the view reads drops the view itself; this file creates it again after it.
--
-- Like V1 to V16, the view stays out of jOOQ's code generation (jooq ignore): no class is generated
-- for it; the worker and the console read it with plain SQL.
-- [jooq ignore start]
create or replace view mongo_cdc.mirror_status as
select
  m.name                                  as mirror,
  m.status                                as state,
  m.source_peer,
  m.destination_peer,
  lb.batch_id                             as last_batch_id,
  lb.started_at                           as last_batch_started_at,
  lb.ended_at                             as last_batch_ended_at,
  lb.records                              as last_batch_records,
  lb.error                                as last_batch_error,
  c.batch_id                              as committed_batch_id,
  c.resume_token                          as committed_resume_token,
  c.cluster_time_at                       as committed_cluster_time,
  c.committed_at,
  now() - c.committed_at                  as checkpoint_age,
  now() - c.cluster_time_at               as replication_lag,
  rate.batches                            as rate_batches,
  rate.records_per_second,
  m.last_error,
  m.last_error_at,
  m.updated_at,
  m.status_reason                         as state_reason,
  m.status_changed_at                     as state_since,
  m.failure_type,
  m.failed_attempts,
  ba.attempts                             as failed_attempts_last_day,
  greatest(m.visible_through, fr.visible_through)          as visible_through,
  now() - greatest(m.visible_through, fr.visible_through)  as visible_lag,
  fr.freshness_p50_ms                     as last_batch_freshness_p50_ms,
  fr.freshness_p99_ms                     as last_batch_freshness_p99_ms,
  case when m.waiting_since is not null
       then 'waiting for destination connections' end       as waiting,
  m.waiting_since
from mongo_cdc.mirrors m
left join mongo_cdc.checkpoints c on c.mirror_name = m.name
left join lateral (
  select b.*
  from mongo_cdc.batches b
  where b.mirror_name = m.name
  order by b.batch_id desc
  limit 1
) lb on true
left join lateral (
  select
    count(*) as batches,
    round(sum(r.records)
          / nullif(extract(epoch from sum(r.ended_at - r.started_at)), 0), 1) as records_per_second
  from (
    select b.records, b.started_at, b.ended_at
    from mongo_cdc.batches b
    where b.mirror_name = m.name and b.ended_at is not null and b.error is null
    order by b.batch_id desc
    limit 10
  ) r
) rate on true
left join lateral (
  select count(*) as attempts
  from mongo_cdc.batch_attempts a
  where a.mirror_name = m.name and a.failed_at > now() - interval '1 day'
) ba on true
left join lateral (
  select b.visible_through, b.freshness_p50_ms, b.freshness_p99_ms
  from mongo_cdc.batches b
  where b.mirror_name = m.name and b.visible_through is not null
  order by b.batch_id desc
  limit 1
) fr on true;

comment on view mongo_cdc.mirror_status is
  'One row per mirror: state as the workflow last reported it (and why, since when), last batch, committed checkpoint and its age (replication_lag: how much a restart would replay), records/s over the last 10 successful batches, last error, failed attempts in the last day, and visible_lag: now minus the source commit time of the newest change visible in the destination, as the running batch last reported it (every few seconds) or the last batch that delivered; waiting: what the running batch waits for (destination connections, while more mirrors write to the peer than the worker''s pool serves at once) and since when.';
-- [jooq ignore stop]
