-- Initial snapshots: the plan of each collection's copy and which partitions are done. The
-- workflow schedules partitions; these rows are the record a restarted or continued workflow
-- reads to skip the partitions already copied.

-- One row per collection a mirror snapshots. start_* is the checkpoint the snapshot started at
-- (change events after it are replayed over the copied rows); a plan is reused only for the
-- same start, and replaced for another one.
create table mongo_cdc.snapshot_collections (
  mirror_name             varchar     not null,
  collection              varchar     not null,
  start_resume_token      varchar collate "C",
  start_cluster_time      bigint      not null,
  filter                  text        not null default '{}',
  estimated_documents     bigint      not null default 0,
  partitions_total        integer     not null,
  state                   varchar     not null default 'copying',
  planned_at              timestamptz not null default now(),
  finished_at             timestamptz,
  constraint snapshot_collections_pk primary key (mirror_name, collection),
  constraint snapshot_collections_mirror_fk
    foreign key (mirror_name) references mongo_cdc.mirrors (name) on delete cascade,
  constraint snapshot_collections_state_check check (state in ('copying', 'done')),
  constraint snapshot_collections_partitions_check check (partitions_total >= 1)
);

-- One row per partition: a range of _id (IdRange JSON, which holds _id values), whether it is
-- copied, and what the copy did.
create table mongo_cdc.snapshot_partitions (
  mirror_name   varchar     not null,
  collection    varchar     not null,
  partition_no  integer     not null,
  id_range      text        not null,
  state         varchar     not null default 'pending',
  documents     bigint      not null default 0,
  bytes         bigint      not null default 0,
  attempts      integer     not null default 0,
  started_at    timestamptz,
  finished_at   timestamptz,
  constraint snapshot_partitions_pk primary key (mirror_name, collection, partition_no),
  constraint snapshot_partitions_collection_fk
    foreign key (mirror_name, collection)
    references mongo_cdc.snapshot_collections (mirror_name, collection) on delete cascade,
  constraint snapshot_partitions_state_check check (state in ('pending', 'done'))
);

-- [jooq ignore start]
-- What an operator reads with plain SQL: select * from mongo_cdc.snapshot_progress;
create view mongo_cdc.snapshot_progress as
select
  c.mirror_name                                              as mirror,
  c.collection,
  c.state,
  c.partitions_total,
  count(p.*) filter (where p.state = 'done')                 as partitions_done,
  count(p.*) filter (where p.state = 'pending' and p.started_at is not null) as partitions_started,
  coalesce(sum(p.documents), 0)                              as documents_copied,
  c.estimated_documents,
  round(100.0 * count(p.*) filter (where p.state = 'done') / c.partitions_total, 1) as percent_done,
  c.planned_at,
  c.finished_at,
  coalesce(c.finished_at, now()) - c.planned_at              as elapsed
from mongo_cdc.snapshot_collections c
left join mongo_cdc.snapshot_partitions p
  on p.mirror_name = c.mirror_name and p.collection = c.collection
group by c.mirror_name, c.collection;

comment on view mongo_cdc.snapshot_progress is
  'One row per collection a mirror snapshots: partitions done of total, documents copied, elapsed time.';
-- [jooq ignore stop]
