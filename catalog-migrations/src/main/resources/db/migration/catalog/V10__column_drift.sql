-- Typed columns (issue 19): per mirror, destination table and typed column, how many written
-- values did not convert to the column's type (the column was left NULL and the row's _drift
-- says why). Added once per finished batch and once per snapshot partition the first time it is
-- recorded done. The exact rows are in the destination: where "_drift" ? 'column'.
create table mongo_cdc.column_drift (
  mirror_name       varchar     not null,
  destination_table varchar     not null,
  column_name       varchar     not null,
  drifted           bigint      not null default 0,
  updated_at        timestamptz not null default now(),
  constraint column_drift_pk primary key (mirror_name, destination_table, column_name),
  constraint column_drift_mirror_fk
    foreign key (mirror_name) references mongo_cdc.mirrors (name) on delete cascade
);
