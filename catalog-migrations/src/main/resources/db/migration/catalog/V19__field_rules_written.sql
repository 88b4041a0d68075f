-- What the rows a mirror wrote hold under its field rules (issue 47, finding 7): a mirror dropped
-- without --drop-tables and created again resumes from its checkpoint over the rows it wrote, so
-- it must know which rules they hold to rewrite them under the rules it adds, or refuse.
alter table mongo_cdc.mirrors add column field_rules_written jsonb;

comment on column mongo_cdc.mirrors.field_rules_written is
  'Once the mirror''s workflow is set up: {"rules": the field rules in effect, "rewrites": the rewrites of rows written before added rules still to run, "hashedPaths": per collection every path a hash rule has had}. Written by the workflow with its state, and by each rewrite slice as it moves on. NULL before that (and for mirrors last run by an older release).';
