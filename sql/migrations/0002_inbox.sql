-- Messages, the monthly message counter, knowledge base, uploads, billing events.

create table messages (
  id uuid primary key default gen_random_uuid(),
  business_id uuid not null references businesses (id) on delete cascade,
  conversation_id uuid not null references conversations (id) on delete cascade,
  sender_type text not null check (sender_type in ('agent', 'customer', 'ai', 'system')),
  -- the agent's user id for agent messages, else null
  sender_id uuid references users (id) on delete set null,
  content text not null,
  -- [{url, filename, content_type, size}]
  attachments jsonb not null default '[]',
  -- null for customer messages
  delivery_status text check (delivery_status in ('queued', 'sent', 'delivered', 'read', 'failed')),
  -- channel this message went through or came from (for the unique external id)
  channel_id uuid references channels (id) on delete set null,
  -- the platform's message id
  external_id text,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index messages_conversation_idx on messages (conversation_id, created_at, id);
create unique index messages_channel_external_idx on messages (channel_id, external_id) where external_id is not null;
create index messages_external_idx on messages (external_id) where external_id is not null;

-- O(1) monthly message counter: agent and AI messages per business per UTC calendar month.
create table message_counters (
  business_id uuid not null references businesses (id) on delete cascade,
  month date not null,
  count integer not null default 0,
  primary key (business_id, month)
);

create table kb_articles (
  id bigint generated always as identity primary key,
  business_id uuid not null references businesses (id) on delete cascade,
  title text not null,
  content text not null,
  tags text[] not null default '{}',
  index_status text not null default 'pending' check (index_status in ('pending', 'indexed', 'failed')),
  index_error text,
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index kb_articles_business_idx on kb_articles (business_id, created_at desc, id desc);

create table uploads (
  id uuid primary key default gen_random_uuid(),
  business_id uuid not null references businesses (id) on delete cascade,
  conversation_id uuid references conversations (id) on delete set null,
  -- unguessable name under DATA_DIR/uploads and in the public URL
  storage_key text not null unique,
  filename text not null,
  content_type text not null,
  size integer not null,
  uploaded_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now()
);
create index uploads_business_idx on uploads (business_id, created_at);

-- Stripe events already applied (each event id once).
create table stripe_events (
  id text primary key,
  type text not null,
  business_id uuid references businesses (id) on delete set null,
  received_at timestamptz not null default now()
);
