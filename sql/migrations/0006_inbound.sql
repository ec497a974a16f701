-- Inbound platform events: stored before the webhook is acknowledged, processed by a job.

create table inbound_events (
  id uuid primary key default gen_random_uuid(),
  business_id uuid not null references businesses (id) on delete cascade,
  channel_id uuid not null references channels (id) on delete cascade,
  -- 'message' or 'receipt'
  kind text not null check (kind in ('message', 'receipt')),
  -- the platform's message id (receipts: message id + status), unique per channel
  dedupe_key text not null,
  -- the normalized event (connectors/types.ts InboundEvent)
  event jsonb not null,
  -- the exact body the platform sent, for audits and re-parsing
  raw_body text,
  received_at timestamptz not null default now(),
  processed_at timestamptz,
  unique (channel_id, dedupe_key)
);
create index inbound_events_unprocessed_idx on inbound_events (received_at) where processed_at is null;

-- E-mail threads keep their subject so replies can say "Re: …".
alter table conversations add column subject text;
