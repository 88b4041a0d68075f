-- Two last partitions of a collection that finished together could each see the other still
-- pending and leave the collection 'copying' for good (SnapshotStore.done now locks the
-- collection's row first). Collections left that way are done.
update mongo_cdc.snapshot_collections c
set state = 'done', finished_at = coalesce(
  (select max(p.finished_at) from mongo_cdc.snapshot_partitions p
   where p.mirror_name = c.mirror_name and p.collection = c.collection), now())
where c.state = 'copying'
  and not exists (
    select 1 from mongo_cdc.snapshot_partitions p
    where p.mirror_name = c.mirror_name and p.collection = c.collection and p.state = 'pending');
