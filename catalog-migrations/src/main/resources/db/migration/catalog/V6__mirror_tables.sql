-- Which mirror each destination table belongs to. A mirror records a table here before it
-- creates it (at set-up, when a collection is added, or when a batch meets a new collection);
-- a mirror that would write a table recorded for another mirror is refused, and
-- `mongo-cdc mirror drop --drop-tables` drops exactly the tables recorded for the mirror.
--
-- The key is the table on its destination (peer, schema, table), so one table has one owner.
-- There is no foreign key to mirrors: a mirror records its tables before it registers, and a
-- mirror created again with the same name after a drop without --drop-tables owns them again.
create table mongo_cdc.mirror_tables (
  destination_peer    varchar     not null,
  destination_schema  varchar     not null,
  destination_table   varchar     not null,
  mirror_name         varchar     not null,
  source_namespace    varchar     not null,
  created_at          timestamptz not null default now(),
  constraint mirror_tables_pk primary key (destination_peer, destination_schema, destination_table)
);

-- [jooq ignore start]
create index mirror_tables_mirror_idx on mongo_cdc.mirror_tables (mirror_name);

-- Mirrors from before this migration recorded nothing: their tables are taken from the tables
-- their batches wrote (table_counters) and from their configured collections (a table is named
-- database.collection when that fits in 63 bytes; longer names are shortened by the worker and
-- known here only from table_counters). Where two mirrors already shared a table, the older
-- mirror keeps it.
insert into mongo_cdc.mirror_tables
  (destination_peer, destination_schema, destination_table, mirror_name, source_namespace, created_at)
select destination_peer, destination_schema, destination_table, mirror_name, source_namespace, created_at
from (
  select m.destination_peer, m.config ->> 'destinationSchema' as destination_schema,
         t.destination_table, m.name as mirror_name,
         coalesce(nullif(t.source_namespace, ''), '') as source_namespace, m.created_at, 1 as preference
  from mongo_cdc.mirrors m
  join mongo_cdc.table_counters t on t.mirror_name = m.name
  union all
  select m.destination_peer, m.config ->> 'destinationSchema',
         (m.config ->> 'sourceDatabase') || '.' || c.collection, m.name,
         (m.config ->> 'sourceDatabase') || '.' || c.collection, m.created_at, 0
  from mongo_cdc.mirrors m
  cross join lateral jsonb_array_elements_text(
    case when jsonb_typeof(m.config -> 'collections') = 'array' then m.config -> 'collections' else '[]' end
  ) as c(collection)
  where m.config ->> 'sourceDatabase' is not null
    and octet_length((m.config ->> 'sourceDatabase') || '.' || c.collection) <= 63
) known
where destination_schema is not null
order by created_at, mirror_name, preference
on conflict do nothing;
-- [jooq ignore stop]
