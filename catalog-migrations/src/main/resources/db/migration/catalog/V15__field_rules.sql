-- Field rules (issue 32): the fingerprint of the key a mirror's hash rules hash with, so workers
-- with another key refuse to write; and the progress of the rewrite of rows written before a rule
-- was added. Never the key itself.
alter table mongo_cdc.mirrors add column field_hash_key_fingerprint varchar collate "C";
alter table mongo_cdc.mirrors add column field_rule_rewrite varchar;
alter table mongo_cdc.mirrors add column field_rule_rewrite_rows bigint;
alter table mongo_cdc.mirrors add column field_rule_rewrite_quarantined varchar;

comment on column mongo_cdc.mirrors.field_hash_key_fingerprint is
  'The first 16 hex digits of the SHA-256 of an HMAC of a fixed text under the mirror''s field hash key: tells keys apart, tells nothing of the key. Set by the first worker that hashed for the mirror; NULL when the mirror never hashed.';
comment on column mongo_cdc.mirrors.field_rule_rewrite is
  'The rewrite of rows written before a field rule was added: NULL when none is running, else the collections it rewrites and where it is.';
comment on column mongo_cdc.mirrors.field_rule_rewrite_quarantined is
  'The id of the last field rule rewrite whose quarantined events are rewritten, set in the transaction that rewrote them, so a retried rewrite does not apply its rules to them twice.';
comment on column mongo_cdc.mirrors.field_rule_rewrite_rows is
  'Rows (tables, history tables, quarantined events) the last or running field rule rewrite has rewritten.';
