-- Each plan stores at most so many bytes of files (agents' uploads and customers' media), and
-- uploads no message ever used are removed after a day (core/commands/uploads-housekeeping.ts).
alter table plans add column max_storage_bytes bigint not null default 0;
update plans set max_storage_bytes = case name
  when 'Free' then 500::bigint * 1024 * 1024
  when 'Mini' then 5::bigint * 1024 * 1024 * 1024
  else 50::bigint * 1024 * 1024 * 1024 end;
-- The hourly sweep of old uploads of the agent app that no message references.
create index uploads_unattached_sweep_idx on uploads (created_at) where source = 'upload';
