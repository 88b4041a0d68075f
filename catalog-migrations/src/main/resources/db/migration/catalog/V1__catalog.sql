-- The mongo-cdc catalog: peers, mirrors, committed checkpoints, batch history, per-table
-- counters and settings. This file (with the migrations after it) is the only definition of
-- the catalog schema; the worker's jOOQ classes are generated from it at build time.
-- Never edit an applied migration: add a new V<n>__*.sql instead.

-- The schema itself (mongo_cdc) is created by Flyway, which keeps its history table in it.

-- A peer is a named endpoint (a MongoDB deployment or a PostgreSQL database). Only non-secret
-- options are stored here; credentials are resolved by the worker from its own configuration.
create table mongo_cdc.peers (
  name        varchar     not null,
  kind        varchar     not null,
  options     jsonb       not null default '{}',
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now(),
  constraint peers_pk primary key (name),
  constraint peers_kind_check check (kind in ('mongodb', 'postgres'))
);

create table mongo_cdc.mirrors (
  name              varchar     not null,
  source_peer       varchar     not null,
  destination_peer  varchar     not null,
  config            jsonb       not null default '{}',
  status            varchar     not null default 'created',
  last_error        text,
  last_error_at     timestamptz,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz not null default now(),
  constraint mirrors_pk primary key (name),
  constraint mirrors_source_peer_fk foreign key (source_peer) references mongo_cdc.peers (name),
  constraint mirrors_destination_peer_fk
    foreign key (destination_peer) references mongo_cdc.peers (name),
  constraint mirrors_status_check
    check (status in ('created', 'setting_up', 'running', 'paused', 'failed', 'terminated'))
);

-- The committed checkpoint of each mirror: where its next batch starts. Monotonic: a commit
-- for an older batch never moves it back (see CheckpointStore). resume_token is null while a
-- mirror has only a start operation time.
create table mongo_cdc.checkpoints (
  mirror_name     varchar     not null,
  batch_id        bigint      not null,
  resume_token    varchar collate "C",
  cluster_time    bigint      not null,
  cluster_time_at timestamptz not null,
  committed_at    timestamptz not null default now(),
  constraint checkpoints_pk primary key (mirror_name),
  constraint checkpoints_mirror_fk
    foreign key (mirror_name) references mongo_cdc.mirrors (name) on delete cascade,
  constraint checkpoints_batch_id_check check (batch_id >= 0)
);

-- One row per batch (PullRecords call) of a mirror.
create table mongo_cdc.batches (
  mirror_name              varchar     not null,
  batch_id                 bigint      not null,
  started_at               timestamptz not null,
  ended_at                 timestamptz,
  records                  bigint      not null default 0,
  bytes                    bigint      not null default 0,
  inserts                  bigint      not null default 0,
  updates                  bigint      not null default 0,
  replaces                 bigint      not null default 0,
  deletes                  bigint      not null default 0,
  first_position           varchar collate "C",
  last_position            varchar collate "C",
  read_ms                  bigint,
  reader_back_pressure_ms  bigint,
  decode_ms                bigint,
  sender_wait_ms           bigint,
  sink_write_ms            bigint,
  sink_commit_ms           bigint,
  end_reason               varchar,
  error                    text,
  constraint batches_pk primary key (mirror_name, batch_id),
  constraint batches_mirror_fk
    foreign key (mirror_name) references mongo_cdc.mirrors (name) on delete cascade
);

-- Running totals per destination table of a mirror.
create table mongo_cdc.table_counters (
  mirror_name        varchar     not null,
  destination_table  varchar     not null,
  source_namespace   varchar     not null,
  records            bigint      not null default 0,
  bytes              bigint      not null default 0,
  inserts            bigint      not null default 0,
  updates            bigint      not null default 0,
  replaces           bigint      not null default 0,
  deletes            bigint      not null default 0,
  last_batch_id      bigint,
  updated_at         timestamptz not null default now(),
  constraint table_counters_pk primary key (mirror_name, destination_table),
  constraint table_counters_mirror_fk
    foreign key (mirror_name) references mongo_cdc.mirrors (name) on delete cascade
);

-- Worker settings, read once when a mirror starts or resumes. value null means: use the
-- default.
create table mongo_cdc.settings (
  name           varchar     not null,
  value          text,
  default_value  text        not null,
  description    text        not null,
  updated_at     timestamptz not null default now(),
  constraint settings_pk primary key (name)
);

insert into mongo_cdc.settings (name, default_value, description) values
  ('pull.decode_workers', '0', 'Decode threads per batch; 0 means one per available processor.'),
  ('pull.chunk_size', '256', 'Change events per chunk handed to a decode worker.'),
  ('pull.max_batch_size', '100000', 'Change events read per batch, at most.'),
  ('pull.idle_timeout_ms', '10000', 'A batch ends after this long without a new event.'),
  ('pull.max_batch_duration_ms', '60000', 'A batch ends after this long even if events keep coming.'),
  ('destination.delete_mode', 'soft', 'soft: deleted rows keep their last document and get _deleted = true; hard: rows are removed.'),
  ('destination.schema', 'public', 'PostgreSQL schema the destination tables are created in.'),
  ('catalog.batch_history_days', '30', 'Batch history rows older than this many days may be pruned.');

-- [jooq ignore start]
create index batches_ended_at_idx on mongo_cdc.batches (mirror_name, ended_at desc);

-- What an operator reads with plain SQL: select * from mongo_cdc.mirror_status;
create view mongo_cdc.mirror_status as
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
  m.updated_at
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
) rate on true;

comment on view mongo_cdc.mirror_status is
  'One row per mirror: state, last batch, committed checkpoint and its age, records/s over the last 10 successful batches, last error.';
-- [jooq ignore stop]
