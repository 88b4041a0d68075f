-- Alerts that fire before history is lost (issue 35): the source's oplog span as the last batch saw
-- it, so the catalog can tell how much history the committed checkpoint has left while no batch
-- runs (a paused, failing or stalled mirror is when the oplog rolls past it).
alter table mongo_cdc.mirrors
  add column oplog_oldest_seconds bigint,
  add column oplog_newest_seconds bigint,
  add column oplog_observed_at timestamptz;

comment on column mongo_cdc.mirrors.oplog_oldest_seconds is
  'Cluster time (seconds) of the oldest entry the source''s oplog held when the last batch ended; NULL when the source does not report its oplog.';
comment on column mongo_cdc.mirrors.oplog_newest_seconds is
  'Cluster time (seconds) of the newest oplog entry at the same moment.';
comment on column mongo_cdc.mirrors.oplog_observed_at is
  'When the worker read the oplog span.';
