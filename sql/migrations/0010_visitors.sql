-- Website visitors are customers of a widget channel (platform_user_id = a random visitor id);
-- this table holds only their rate limits: one fixed window per key (`message:<customer id>`,
-- `session:<client address>`), so every API node counts the same requests.
create table rate_windows (
  key text primary key,
  window_start timestamptz not null default now(),
  count integer not null default 0
);
-- Stale windows are pruned by age (core/domain/rate-windows.ts).
create index rate_windows_start_idx on rate_windows (window_start);
