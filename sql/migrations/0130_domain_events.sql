-- Domain events (issue "Events drive the desk"): every command records what it changed, in its
-- own transaction, as rows of domain_events; subscribers (core/events/subscribers.ts) react to
-- them after commit through the handle_events job that recording adds (the SQL function
-- domain_events_record, sql/functions/domain_events_record.sql). The activity history of a
-- conversation (GET /conversations/{id}/events) reads the same rows.
--
-- The reactions the pipeline replaces were wired into hot statements: the SQL functions and
-- triggers that armed auto-assignment, the out-of-hours reply, SLA refreshes, CSAT requests and
-- webhook dispatches. They go here; the subscribers do the same from the events.

create table domain_events (
  business_id uuid not null references businesses (id) on delete cascade,
  -- Time-ordered (UUIDv7, sql/functions/uuid_v7.sql); `seq` is the exact order of recording.
  id uuid not null,
  seq bigint generated always as identity,
  conversation_id uuid references conversations (id) on delete cascade,
  type text not null check (type ~ '^[a-z_]+\.[a-z_]+$'),
  actor_type text not null check (actor_type in ('member', 'customer', 'ai', 'system', 'api_key')),
  -- The member's user id, the customer's id, or the API key's id; null for the AI and the system.
  actor_id uuid,
  -- The member's name as it was (an API key's: its name and maker), so history reads need no join.
  actor_name text,
  -- What changed: per type (core/events/domain.ts); ids of other objects, before/after of settings.
  data jsonb not null default '{}',
  -- Set when handle_events ran every subscriber for it (null: waiting for the subscribers).
  handled_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (id)
);
-- The activity history of one conversation, newest first (keyset on id).
create index domain_events_conversation_idx on domain_events (conversation_id, seq) where conversation_id is not null;
create index domain_events_business_idx on domain_events (business_id, seq);

-- A subscriber's retried run (retry_subscriber) for one batch of events, once: the first event's id names the batch.
create table domain_event_receipts (
  business_id uuid not null references businesses (id) on delete cascade,
  subscriber text not null,
  event_id uuid not null references domain_events (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (subscriber, event_id)
);
create index domain_event_receipts_event_idx on domain_event_receipts (event_id);
create index domain_event_receipts_business_idx on domain_event_receipts (business_id);

-- Replaced by subscribers (core/subscribers/): SLA, CSAT, auto-assignment, out-of-hours, webhooks.
drop trigger messages_sla_arm on messages;
drop trigger conversation_labels_sla_arm on conversation_labels;
drop trigger conversations_status_arm on conversations;
drop trigger conversations_sla_arm on conversations;
drop trigger business_hours_sla_arm on business_hours;
drop function sla_arm_message();
drop function sla_arm_labels();
drop function conversation_status_arm();
drop function sla_arm_conversation();
drop function sla_arm_business_hours();
drop function webhook_events_enqueue(uuid, jsonb);
drop function sla_arm(uuid, uuid);
-- inbound_apply_message (sql/functions/inbound_apply_message.sql, applied after the migrations)
-- no longer calls these two: the inbound drain records the events, and subscribers arm the jobs.
drop function auto_assign_arm(uuid);
drop function business_hours_arm(uuid, uuid, uuid);
