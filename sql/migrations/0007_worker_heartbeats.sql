-- Worker liveness: each worker process beats here; jobs locked by workers that stopped beating
-- (a SIGKILL, a lost machine) are unlocked at once instead of after graphile-worker's 4 hours.
create table worker_heartbeats (
  worker_id text primary key,
  seen_at timestamptz not null default now()
);
create index worker_heartbeats_seen_idx on worker_heartbeats (seen_at);
