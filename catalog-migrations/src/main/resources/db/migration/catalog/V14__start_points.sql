-- Where each mirror's change stream started when it was set up (issue 33): the start point its
-- creator chose with --start-at or --start-after, or the source's time then. Written by the
-- workflow's state records; NULL for mirrors set up before this migration, or set up again over a
-- checkpoint the catalog held.
alter table mongo_cdc.mirrors add column start_resume_token varchar collate "C";
alter table mongo_cdc.mirrors add column start_cluster_time bigint;
alter table mongo_cdc.mirrors add column start_cluster_time_at timestamptz;

comment on column mongo_cdc.mirrors.start_resume_token is
  'The resume token the stream started after (--start-after); NULL when it started at an operation time.';
comment on column mongo_cdc.mirrors.start_cluster_time is
  'The cluster time the stream started at (inclusive) or, with a token, the token''s event''s: seconds << 32 | increment, as checkpoints.cluster_time.';
comment on column mongo_cdc.mirrors.start_cluster_time_at is
  'start_cluster_time''s seconds as a time.';
