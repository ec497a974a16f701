-- Accounts, workspaces, teams, plans, and the inbox tables every later feature stands on.

create table plans (
  name text primary key check (name in ('Free', 'Mini', 'Pro')),
  rank integer not null unique,
  -- agents besides the owner
  max_additional_agents integer not null,
  max_channels integer not null,
  -- true: only `widget` channels may be created (Free)
  widget_channels_only boolean not null,
  max_kb_articles integer not null,
  max_messages_per_month integer not null,
  ai_auto_reply boolean not null
);

insert into plans (name, rank, max_additional_agents, max_channels, widget_channels_only, max_kb_articles, max_messages_per_month, ai_auto_reply) values
  ('Free', 0, 0, 3, true, 5, 250, false),
  ('Mini', 1, 2, 3, false, 25, 5000, true),
  ('Pro', 2, 5, 100, false, 1000, 50000, true);

create table users (
  id uuid primary key default gen_random_uuid(),
  email text not null unique check (email = lower(email)),
  full_name text not null,
  -- null for accounts that only ever signed in with Google
  password_hash text,
  is_verified boolean not null default false,
  is_google_account boolean not null default false,
  google_sub text unique,
  avatar_url text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table businesses (
  id uuid primary key default gen_random_uuid(),
  -- the integer the interface shows where it declares an integer business id
  number bigint generated always as identity unique,
  name text not null,
  website text not null default '',
  industry text not null default '',
  team_size text not null default '',
  goal text not null default '',
  owner_id uuid not null references users (id) on delete restrict,
  plan text not null default 'Free' references plans (name) on delete restrict,
  -- next per-business agent number; numbers are never reused
  next_agent_number integer not null default 1,
  ai_auto_reply_enabled boolean not null default false,
  stripe_customer_id text,
  stripe_subscription_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table team_members (
  id uuid primary key default gen_random_uuid(),
  business_id uuid not null references businesses (id) on delete cascade,
  -- a user belongs to at most one business
  user_id uuid not null unique references users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'agent')),
  status text not null default 'offline' check (status in ('live', 'away', 'offline')),
  is_active boolean not null default true,
  agent_number integer not null,
  invited_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (business_id, agent_number)
);
create index team_members_business_idx on team_members (business_id, agent_number);

-- Access tokens revoked by logout, kept until they would have expired anyway.
create table revoked_tokens (
  jti uuid primary key,
  expires_at timestamptz not null
);
create index revoked_tokens_expires_idx on revoked_tokens (expires_at);

-- Failed logins, for the login rate limit (per e-mail and client address, 15 minutes).
create table login_failures (
  id bigint generated always as identity primary key,
  email text not null,
  ip text not null,
  at timestamptz not null default now()
);
create index login_failures_lookup_idx on login_failures (email, ip, at);

create table channels (
  id uuid primary key default gen_random_uuid(),
  business_id uuid not null references businesses (id) on delete cascade,
  type text not null check (type in ('webchat', 'widget', 'email', 'whatsapp', 'telegram', 'instagram', 'x', 'sms')),
  -- the business's built-in webchat channel: not counted, cannot be deleted
  is_builtin boolean not null default false,
  -- the whole config, encrypted (AES-256-GCM, see core/crypto.ts); null when empty
  config_encrypted text,
  -- values the platform routes on (phone_number_id, verify_token, widget_id...): plain, indexed
  routing_key text,
  verify_token text,
  is_active boolean not null default true,
  status text not null default 'pending' check (status in ('pending', 'connected', 'error')),
  last_error text,
  -- connector state that is not configuration: polling offsets, IMAP uid, webhook secrets
  state jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index channels_business_idx on channels (business_id, created_at);
create unique index channels_one_builtin_idx on channels (business_id) where is_builtin;
create index channels_routing_idx on channels (type, routing_key) where routing_key is not null;
create index channels_verify_token_idx on channels (type, verify_token) where verify_token is not null;

create table widgets (
  id uuid primary key default gen_random_uuid(),
  business_id uuid not null references businesses (id) on delete cascade,
  name text not null default 'Chat Widget',
  domain text not null,
  welcome_heading text not null default 'Hi there!',
  welcome_tagline text not null default 'We make it simple to connect with us. Ask us anything, or share your feedback.',
  primary_color text not null default '#7650FF',
  show_online_badge boolean not null default true,
  logo_url text,
  config jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (business_id, domain)
);

create table customers (
  id uuid primary key default gen_random_uuid(),
  number bigint generated always as identity unique,
  business_id uuid not null references businesses (id) on delete cascade,
  channel_id uuid references channels (id) on delete set null,
  -- the customer's id on the platform (chat id, phone, e-mail, PSID...)
  platform_user_id text,
  name text not null default '',
  email text,
  phone text,
  external_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index customers_business_idx on customers (business_id, created_at desc);
create unique index customers_platform_idx on customers (channel_id, platform_user_id) where platform_user_id is not null;

create table conversations (
  id uuid primary key default gen_random_uuid(),
  business_id uuid not null references businesses (id) on delete cascade,
  customer_id uuid references customers (id) on delete set null,
  channel_id uuid references channels (id) on delete set null,
  channel_type text not null,
  status text not null default 'open' check (status in ('open', 'pending', 'resolved', 'closed')),
  -- the assigned member's user id
  assignee_id uuid references users (id) on delete set null,
  assigned_at timestamptz,
  first_response_at timestamptz,
  resolved_at timestamptz,
  resolved_by uuid references users (id) on delete set null,
  closed_at timestamptz,
  handoff_requested_at timestamptz,
  handoff_reason text,
  last_message_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index conversations_business_updated_idx on conversations (business_id, updated_at desc, id desc);
create index conversations_business_created_idx on conversations (business_id, created_at);
create index conversations_business_status_idx on conversations (business_id, status, updated_at desc, id desc);
create index conversations_assignee_idx on conversations (assignee_id, updated_at desc) where assignee_id is not null;
create index conversations_customer_idx on conversations (customer_id, updated_at desc) where customer_id is not null;
create index conversations_handoff_idx on conversations (business_id, handoff_requested_at desc) where handoff_requested_at is not null;
create index conversations_channel_idx on conversations (channel_id) where channel_id is not null;
