-- Parley as a platform (issue #20 items 1, 2 and 7): API keys, signed webhooks out, audit log.
--
-- Every table belongs to one business: primary keys are (business_id, id) and every key and
-- foreign key carries the distribution column (docs/scaling.md).

-- API keys. The key itself (`prl_<business id hex><secret>`) is shown once; only its SHA-256
-- is stored. The business id in the key finds the row by (business_id, secret_hash) without a
-- global index. A key acts as the member who made it (member_id: no foreign key, team_members
-- has a global primary key; the auth query joins on business_id and the member's `is_active`),
-- so a member who leaves or is removed takes their keys' rights with them.
create table api_keys (
  business_id uuid not null references businesses (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 100),
  scopes text[] not null check (cardinality(scopes) between 1 and 3 and scopes <@ array['read', 'write', 'admin']),
  secret_hash bytea not null check (octet_length(secret_hash) = 32),
  last_four text not null check (char_length(last_four) = 4),
  member_id uuid not null,
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  primary key (business_id, id)
);
create unique index api_keys_secret_key on api_keys (business_id, secret_hash);
-- GET /api-keys: newest first, keyset on (created_at, id).
create index api_keys_list_idx on api_keys (business_id, created_at desc, id desc);

-- Endpoints that receive the business's events. The signing secret is sealed like channel
-- credentials (core/crypto.ts, CONFIG_ENCRYPTION_KEY).
create table webhook_endpoints (
  business_id uuid not null references businesses (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  url text not null check (char_length(url) between 1 and 2000),
  events text[] not null check (cardinality(events) >= 1),
  active boolean not null default true,
  secret_encrypted text not null,
  disabled_reason text,
  last_success_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (business_id, id)
);
create index webhook_endpoints_list_idx on webhook_endpoints (business_id, created_at desc, id desc);

-- One event for one endpoint. `body` is the exact JSON sent on every attempt (its `id` is
-- `event_id`, the same for every endpoint and attempt: receivers deduplicate on it). The unique
-- key makes dispatching an event twice (a retried dispatch job) create each delivery once.
create table webhook_deliveries (
  business_id uuid not null,
  id uuid not null default gen_random_uuid(),
  webhook_id uuid not null,
  event_id uuid not null,
  event_type text not null,
  body text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  response_status integer,
  response_ms integer,
  last_error text,
  created_at timestamptz not null default now(),
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  primary key (business_id, id),
  foreign key (business_id, webhook_id) references webhook_endpoints (business_id, id) on delete cascade
);
create unique index webhook_deliveries_event_key on webhook_deliveries (business_id, webhook_id, event_id);
-- GET /webhooks/{id}/deliveries: newest first, keyset on (created_at, id).
create index webhook_deliveries_list_idx on webhook_deliveries (business_id, webhook_id, created_at desc, id desc);

-- Who did what to the business's settings, members, channels, keys, webhooks and plan. Written
-- in the transaction of the change; `actor_name` is the name at the time (the user may go).
create table audit_log (
  business_id uuid not null references businesses (id) on delete cascade,
  id bigint generated always as identity,
  actor_type text not null check (actor_type in ('user', 'api_key', 'system')),
  actor_user_id uuid,
  actor_api_key_id uuid,
  actor_name text not null,
  action text not null,
  target_type text not null,
  target_id text,
  details jsonb not null default '{}',
  created_at timestamptz not null default now(),
  primary key (business_id, id)
);
-- GET /audit-log: newest first; the primary key is the keyset (id descending).
