-- Generated from sql/migrations by `npm run db:schema`: do not edit.
-- test/sql-schema.test.ts fails when it is stale.

create extension btree_gin;
create extension pg_trgm;

create table api_keys (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  name text not null,
  scopes text[] not null,
  secret_hash bytea not null,
  last_four text not null,
  member_id uuid not null,
  created_by uuid,
  created_at timestamp with time zone default now() not null,
  last_used_at timestamp with time zone,
  revoked_at timestamp with time zone
);
alter table api_keys add constraint api_keys_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table api_keys add constraint api_keys_created_by_fkey FOREIGN KEY (created_by) REFERENCES users(id) ON DELETE SET NULL;
alter table api_keys add constraint api_keys_last_four_check CHECK ((char_length(last_four) = 4));
alter table api_keys add constraint api_keys_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100)));
alter table api_keys add constraint api_keys_pkey PRIMARY KEY (business_id, id);
alter table api_keys add constraint api_keys_scopes_check CHECK ((((cardinality(scopes) >= 1) AND (cardinality(scopes) <= 3)) AND (scopes <@ ARRAY['read'::text, 'write'::text, 'admin'::text])));
alter table api_keys add constraint api_keys_secret_hash_check CHECK ((octet_length(secret_hash) = 32));
CREATE INDEX api_keys_list_idx ON public.api_keys USING btree (business_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX api_keys_secret_key ON public.api_keys USING btree (business_id, secret_hash);

create table assignment_settings (
  business_id uuid not null,
  enabled boolean default false not null,
  max_open_per_agent integer default 10 not null,
  cursor_agent_number integer,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  team_visibility boolean default false not null
);
alter table assignment_settings add constraint assignment_settings_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table assignment_settings add constraint assignment_settings_max_open_per_agent_check CHECK (((max_open_per_agent >= 1) AND (max_open_per_agent <= 1000)));
alter table assignment_settings add constraint assignment_settings_pkey PRIMARY KEY (business_id);

create table audit_log (
  business_id uuid not null,
  id bigint generated always as identity not null,
  actor_type text not null,
  actor_user_id uuid,
  actor_api_key_id uuid,
  actor_name text not null,
  action text not null,
  target_type text not null,
  target_id text,
  details jsonb default '{}'::jsonb not null,
  created_at timestamp with time zone default now() not null
);
alter table audit_log add constraint audit_log_actor_type_check CHECK ((actor_type = ANY (ARRAY['user'::text, 'api_key'::text, 'system'::text])));
alter table audit_log add constraint audit_log_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table audit_log add constraint audit_log_pkey PRIMARY KEY (business_id, id);

create table business_hours (
  business_id uuid not null,
  enabled boolean default false not null,
  timezone text default 'UTC'::text not null,
  week jsonb default '{}'::jsonb not null,
  holidays date[] default '{}'::date[] not null,
  out_of_hours_message text default 'Thanks for your message! Our team is away right now; we will answer as soon as we are back.'::text not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null
);
alter table business_hours add constraint business_hours_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table business_hours add constraint business_hours_out_of_hours_message_check CHECK (((char_length(out_of_hours_message) >= 1) AND (char_length(out_of_hours_message) <= 2000)));
alter table business_hours add constraint business_hours_pkey PRIMARY KEY (business_id);

create table businesses (
  id uuid default gen_random_uuid() not null,
  number bigint generated always as identity not null,
  name text not null,
  website text default ''::text not null,
  industry text default ''::text not null,
  team_size text default ''::text not null,
  goal text default ''::text not null,
  owner_id uuid not null,
  plan text default 'Free'::text not null,
  next_agent_number integer default 1 not null,
  ai_auto_reply_enabled boolean default false not null,
  stripe_customer_id text,
  stripe_subscription_id text,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  past_due_since timestamp with time zone,
  require_two_factor boolean default false not null,
  retention_days integer,
  plan_chosen_by_operator boolean default false not null
);
alter table businesses add constraint businesses_number_key UNIQUE (number);
alter table businesses add constraint businesses_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES users(id) ON DELETE RESTRICT;
alter table businesses add constraint businesses_pkey PRIMARY KEY (id);
alter table businesses add constraint businesses_plan_fkey FOREIGN KEY (plan) REFERENCES plans(name) ON DELETE RESTRICT;
alter table businesses add constraint businesses_retention_days_check CHECK (((retention_days >= 1) AND (retention_days <= 36500)));
CREATE INDEX businesses_past_due_idx ON public.businesses USING btree (past_due_since) WHERE (past_due_since IS NOT NULL);
CREATE INDEX businesses_retention_idx ON public.businesses USING btree (id) WHERE (retention_days IS NOT NULL);
CREATE INDEX businesses_stripe_subscription_idx ON public.businesses USING btree (stripe_subscription_id) WHERE (stripe_subscription_id IS NOT NULL);

create table canned_responses (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  short_code text not null,
  content text not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null
);
alter table canned_responses add constraint canned_responses_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table canned_responses add constraint canned_responses_content_check CHECK (((char_length(content) >= 1) AND (char_length(content) <= 10000)));
alter table canned_responses add constraint canned_responses_pkey PRIMARY KEY (business_id, id);
alter table canned_responses add constraint canned_responses_short_code_check CHECK (((char_length(short_code) >= 1) AND (char_length(short_code) <= 50)));
CREATE UNIQUE INDEX canned_responses_business_code_key ON public.canned_responses USING btree (business_id, lower(short_code));

create table channel_templates (
  business_id uuid not null,
  channel_id uuid not null,
  name text not null,
  language text not null,
  category text default ''::text not null,
  status text not null,
  body text default ''::text not null,
  parameter_count integer default 0 not null,
  components jsonb default '[]'::jsonb not null,
  synced_at timestamp with time zone default now() not null
);
alter table channel_templates add constraint channel_templates_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table channel_templates add constraint channel_templates_channel_id_business_id_fkey FOREIGN KEY (channel_id, business_id) REFERENCES channels(id, business_id) ON DELETE CASCADE;
alter table channel_templates add constraint channel_templates_pkey PRIMARY KEY (channel_id, name, language, business_id);

create table channels (
  id uuid default gen_random_uuid() not null,
  business_id uuid not null,
  type text not null,
  is_builtin boolean default false not null,
  config_encrypted text,
  routing_key text,
  verify_token text,
  is_active boolean default true not null,
  status text default 'pending'::text not null,
  last_error text,
  state jsonb default '{}'::jsonb not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  routing_proven boolean default false not null,
  default_team_id uuid,
  send_held_until timestamp with time zone
);
alter table channels add constraint channels_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table channels add constraint channels_default_team_fkey FOREIGN KEY (business_id, default_team_id) REFERENCES teams(business_id, id) ON DELETE SET NULL (default_team_id);
alter table channels add constraint channels_pkey PRIMARY KEY (id);
alter table channels add constraint channels_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'connected'::text, 'error'::text])));
alter table channels add constraint channels_type_check CHECK ((type = ANY (ARRAY['webchat'::text, 'widget'::text, 'email'::text, 'whatsapp'::text, 'telegram'::text, 'instagram'::text, 'x'::text, 'sms'::text])));
CREATE INDEX channels_business_idx ON public.channels USING btree (business_id, created_at);
CREATE UNIQUE INDEX channels_id_business_key ON public.channels USING btree (id, business_id);
CREATE UNIQUE INDEX channels_one_builtin_idx ON public.channels USING btree (business_id) WHERE is_builtin;
CREATE INDEX channels_routing_key_idx ON public.channels USING btree (type, routing_key) WHERE (routing_key IS NOT NULL);
CREATE UNIQUE INDEX channels_routing_key_unique_idx ON public.channels USING btree (type, routing_key) WHERE ((routing_key IS NOT NULL) AND routing_proven);
CREATE INDEX channels_verify_token_idx ON public.channels USING btree (type, verify_token) WHERE (verify_token IS NOT NULL);

create table conversation_labels (
  business_id uuid not null,
  conversation_id uuid not null,
  label_id uuid not null,
  created_at timestamp with time zone default now() not null
);
alter table conversation_labels add constraint conversation_labels_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table conversation_labels add constraint conversation_labels_business_id_label_id_fkey FOREIGN KEY (business_id, label_id) REFERENCES labels(business_id, id) ON DELETE CASCADE;
alter table conversation_labels add constraint conversation_labels_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;
alter table conversation_labels add constraint conversation_labels_pkey PRIMARY KEY (business_id, conversation_id, label_id);
CREATE INDEX conversation_labels_label_idx ON public.conversation_labels USING btree (business_id, label_id, conversation_id);

create table conversations (
  id uuid default gen_random_uuid() not null,
  business_id uuid not null,
  customer_id uuid,
  channel_id uuid,
  channel_type text not null,
  status text default 'open'::text not null,
  assignee_id uuid,
  assigned_at timestamp with time zone,
  first_response_at timestamp with time zone,
  resolved_at timestamp with time zone,
  resolved_by uuid,
  closed_at timestamp with time zone,
  handoff_requested_at timestamp with time zone,
  handoff_reason text,
  last_message_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  subject text,
  hours_checked_at timestamp with time zone,
  hours_checked_until timestamp with time zone,
  reply_window_expires_at timestamp with time zone,
  snoozed_at timestamp with time zone,
  snoozed_until timestamp with time zone,
  priority text default 'none'::text not null,
  sla_policy_id uuid,
  sla_first_response_due_at timestamp with time zone,
  sla_next_response_due_at timestamp with time zone,
  sla_resolution_due_at timestamp with time zone,
  sla_due_at timestamp with time zone,
  sla_alert_at timestamp with time zone,
  team_id uuid,
  first_response_business_seconds double precision,
  resolution_business_seconds double precision
);
alter table conversations add constraint conversations_assignee_id_fkey FOREIGN KEY (assignee_id) REFERENCES users(id) ON DELETE SET NULL;
alter table conversations add constraint conversations_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table conversations add constraint conversations_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES channels(id) ON DELETE SET NULL;
alter table conversations add constraint conversations_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers(id) ON DELETE SET NULL;
alter table conversations add constraint conversations_pkey PRIMARY KEY (id);
alter table conversations add constraint conversations_priority_check CHECK ((priority = ANY (ARRAY['none'::text, 'low'::text, 'medium'::text, 'high'::text, 'urgent'::text])));
alter table conversations add constraint conversations_resolved_by_fkey FOREIGN KEY (resolved_by) REFERENCES users(id) ON DELETE SET NULL;
alter table conversations add constraint conversations_sla_policy_fkey FOREIGN KEY (business_id, sla_policy_id) REFERENCES sla_policies(business_id, id) ON DELETE SET NULL (sla_policy_id);
alter table conversations add constraint conversations_snooze_check CHECK (((snoozed_until IS NULL) OR (snoozed_at IS NOT NULL)));
alter table conversations add constraint conversations_status_check CHECK ((status = ANY (ARRAY['open'::text, 'pending'::text, 'resolved'::text, 'closed'::text])));
alter table conversations add constraint conversations_team_fkey FOREIGN KEY (business_id, team_id) REFERENCES teams(business_id, id) ON DELETE SET NULL (team_id);
CREATE INDEX conversations_assignee_idx ON public.conversations USING btree (assignee_id, updated_at DESC) WHERE (assignee_id IS NOT NULL);
CREATE INDEX conversations_assignee_load_idx ON public.conversations USING btree (business_id, assignee_id) WHERE ((assignee_id IS NOT NULL) AND (status = ANY (ARRAY['open'::text, 'pending'::text])));
CREATE INDEX conversations_business_channel_type_idx ON public.conversations USING btree (business_id, channel_type, updated_at DESC, id DESC);
CREATE INDEX conversations_business_created_idx ON public.conversations USING btree (business_id, created_at) INCLUDE (channel_type, resolved_by, resolved_at, first_response_at, assignee_id, id, first_response_business_seconds);
CREATE INDEX conversations_business_priority_idx ON public.conversations USING btree (business_id, priority, updated_at DESC, id DESC);
CREATE INDEX conversations_business_resolved_idx ON public.conversations USING btree (business_id, resolved_at) INCLUDE (created_at, resolved_by, channel_type, id, resolution_business_seconds) WHERE (resolved_at IS NOT NULL);
CREATE INDEX conversations_business_status_idx ON public.conversations USING btree (business_id, status, updated_at DESC, id DESC);
CREATE INDEX conversations_business_team_idx ON public.conversations USING btree (business_id, team_id, updated_at DESC, id DESC) WHERE (team_id IS NOT NULL);
CREATE INDEX conversations_business_updated_idx ON public.conversations USING btree (business_id, updated_at DESC, id DESC);
CREATE INDEX conversations_channel_idx ON public.conversations USING btree (channel_id) WHERE (channel_id IS NOT NULL);
CREATE INDEX conversations_customer_idx ON public.conversations USING btree (customer_id, updated_at DESC) WHERE (customer_id IS NOT NULL);
CREATE INDEX conversations_handoff_idx ON public.conversations USING btree (business_id, handoff_requested_at DESC) WHERE (handoff_requested_at IS NOT NULL);
CREATE INDEX conversations_retention_idx ON public.conversations USING btree (business_id, COALESCE(last_message_at, created_at)) WHERE (status = ANY (ARRAY['resolved'::text, 'closed'::text]));
CREATE INDEX conversations_sla_alert_idx ON public.conversations USING btree (sla_alert_at) WHERE (sla_alert_at IS NOT NULL);
CREATE INDEX conversations_sla_due_idx ON public.conversations USING btree (business_id, sla_due_at, id) WHERE (sla_due_at IS NOT NULL);
CREATE INDEX conversations_snooze_due_idx ON public.conversations USING btree (snoozed_until) WHERE (snoozed_until IS NOT NULL);
CREATE INDEX conversations_snoozed_idx ON public.conversations USING btree (business_id, updated_at DESC, id DESC) WHERE (snoozed_at IS NOT NULL);
CREATE INDEX conversations_waiting_idx ON public.conversations USING btree (business_id, created_at, id) WHERE ((assignee_id IS NULL) AND (status = ANY (ARRAY['open'::text, 'pending'::text])));
CREATE TRIGGER conversations_business_durations_insert BEFORE INSERT ON public.conversations FOR EACH ROW WHEN (((new.first_response_at IS NOT NULL) OR (new.resolved_at IS NOT NULL) OR (new.first_response_business_seconds IS NOT NULL) OR (new.resolution_business_seconds IS NOT NULL))) EXECUTE FUNCTION conversations_business_durations();
CREATE TRIGGER conversations_business_durations_update BEFORE UPDATE OF first_response_at, resolved_at, created_at ON public.conversations FOR EACH ROW WHEN (((old.first_response_at IS DISTINCT FROM new.first_response_at) OR (old.resolved_at IS DISTINCT FROM new.resolved_at) OR (old.created_at IS DISTINCT FROM new.created_at))) EXECUTE FUNCTION conversations_business_durations();
CREATE TRIGGER conversations_default_team BEFORE INSERT ON public.conversations FOR EACH ROW EXECUTE FUNCTION conversation_default_team();

create table csat_settings (
  business_id uuid not null,
  enabled boolean default false not null,
  question text not null,
  updated_at timestamp with time zone default now() not null
);
alter table csat_settings add constraint csat_settings_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table csat_settings add constraint csat_settings_pkey PRIMARY KEY (business_id);
alter table csat_settings add constraint csat_settings_question_check CHECK (((char_length(question) >= 1) AND (char_length(question) <= 500)));

create table csat_surveys (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  conversation_id uuid not null,
  message_id uuid,
  token text not null,
  question text not null,
  rating smallint,
  comment text,
  asked_at timestamp with time zone default now() not null,
  rated_at timestamp with time zone
);
alter table csat_surveys add constraint csat_surveys_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table csat_surveys add constraint csat_surveys_check CHECK (((rating IS NULL) = (rated_at IS NULL)));
alter table csat_surveys add constraint csat_surveys_comment_check CHECK ((char_length(comment) <= 2000));
alter table csat_surveys add constraint csat_surveys_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;
alter table csat_surveys add constraint csat_surveys_pkey PRIMARY KEY (business_id, id);
alter table csat_surveys add constraint csat_surveys_rating_check CHECK (((rating >= 1) AND (rating <= 5)));
CREATE INDEX csat_surveys_asked_idx ON public.csat_surveys USING btree (business_id, asked_at);
CREATE UNIQUE INDEX csat_surveys_conversation_key ON public.csat_surveys USING btree (business_id, conversation_id);
CREATE INDEX csat_surveys_message_idx ON public.csat_surveys USING btree (message_id) WHERE (message_id IS NOT NULL);
CREATE INDEX csat_surveys_rated_idx ON public.csat_surveys USING btree (business_id, rated_at) INCLUDE (rating) WHERE (rated_at IS NOT NULL);
CREATE UNIQUE INDEX csat_surveys_token_key ON public.csat_surveys USING btree (business_id, token);

create table customer_attribute_definitions (
  business_id uuid not null,
  key text not null,
  label text not null,
  type text not null,
  options text[],
  "position" integer not null
);
alter table customer_attribute_definitions add constraint customer_attribute_definitions_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table customer_attribute_definitions add constraint customer_attribute_definitions_check CHECK ((((type = 'list'::text) = (options IS NOT NULL)) AND ((options IS NULL) OR ((cardinality(options) >= 1) AND (cardinality(options) <= 100)))));
alter table customer_attribute_definitions add constraint customer_attribute_definitions_key_check CHECK ((key ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,49}$'::text));
alter table customer_attribute_definitions add constraint customer_attribute_definitions_label_check CHECK (((char_length(label) >= 1) AND (char_length(label) <= 100)));
alter table customer_attribute_definitions add constraint customer_attribute_definitions_pkey PRIMARY KEY (business_id, key);
alter table customer_attribute_definitions add constraint customer_attribute_definitions_position_check CHECK (("position" >= 0));
alter table customer_attribute_definitions add constraint customer_attribute_definitions_type_check CHECK ((type = ANY (ARRAY['text'::text, 'number'::text, 'date'::text, 'boolean'::text, 'list'::text])));

create table customer_notes (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  customer_id uuid not null,
  author_id uuid,
  author_name text not null,
  body text not null,
  created_at timestamp with time zone default now() not null
);
alter table customer_notes add constraint customer_notes_author_id_fkey FOREIGN KEY (author_id) REFERENCES users(id) ON DELETE SET NULL;
alter table customer_notes add constraint customer_notes_body_check CHECK (((char_length(body) >= 1) AND (char_length(body) <= 5000)));
alter table customer_notes add constraint customer_notes_business_id_customer_id_fkey FOREIGN KEY (business_id, customer_id) REFERENCES customers(business_id, id) ON DELETE CASCADE;
alter table customer_notes add constraint customer_notes_pkey PRIMARY KEY (business_id, id);
CREATE INDEX customer_notes_list_idx ON public.customer_notes USING btree (business_id, customer_id, created_at DESC, id DESC);

create table customers (
  id uuid default gen_random_uuid() not null,
  number bigint generated always as identity not null,
  business_id uuid not null,
  channel_id uuid,
  platform_user_id text,
  name text default ''::text not null,
  email text,
  phone text,
  external_id text,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  attributes jsonb default '{}'::jsonb not null,
  edited_at timestamp with time zone,
  merged_into uuid,
  erasing_at timestamp with time zone,
  visitor_context jsonb,
  generated_name text
);
alter table customers add constraint customers_attributes_check CHECK (((jsonb_typeof(attributes) = 'object'::text) AND (octet_length((attributes)::text) <= 16384)));
alter table customers add constraint customers_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table customers add constraint customers_business_id_id_key UNIQUE (business_id, id);
alter table customers add constraint customers_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES channels(id) ON DELETE SET NULL;
alter table customers add constraint customers_merged_into_check CHECK (((merged_into IS NULL) OR (merged_into <> id)));
alter table customers add constraint customers_merged_into_fkey FOREIGN KEY (business_id, merged_into) REFERENCES customers(business_id, id) ON DELETE CASCADE;
alter table customers add constraint customers_number_key UNIQUE (number, business_id);
alter table customers add constraint customers_pkey PRIMARY KEY (id);
CREATE INDEX customers_attributes_idx ON public.customers USING gin (attributes jsonb_path_ops) WHERE (merged_into IS NULL);
CREATE INDEX customers_business_email_lower_idx ON public.customers USING btree (business_id, lower(email)) WHERE ((email IS NOT NULL) AND (merged_into IS NULL));
CREATE INDEX customers_business_email_trgm_idx ON public.customers USING gin (business_id, email gin_trgm_ops) WHERE (email IS NOT NULL);
CREATE INDEX customers_business_idx ON public.customers USING btree (business_id, created_at DESC);
CREATE INDEX customers_business_name_idx ON public.customers USING btree (business_id, name);
CREATE INDEX customers_business_name_trgm_idx ON public.customers USING gin (business_id, name gin_trgm_ops);
CREATE INDEX customers_business_number_idx ON public.customers USING btree (business_id, number DESC);
CREATE INDEX customers_business_phone_digits_trgm_idx ON public.customers USING gin (business_id, regexp_replace(phone, '\D'::text, ''::text, 'g'::text) gin_trgm_ops) WHERE (phone IS NOT NULL);
CREATE INDEX customers_merged_into_idx ON public.customers USING btree (business_id, merged_into) WHERE (merged_into IS NOT NULL);
CREATE INDEX customers_phone_trgm_idx ON public.customers USING gin (phone gin_trgm_ops);
CREATE UNIQUE INDEX customers_platform_idx ON public.customers USING btree (channel_id, platform_user_id, business_id) WHERE (platform_user_id IS NOT NULL);

create table domain_event_receipts (
  business_id uuid not null,
  subscriber text not null,
  event_id uuid not null,
  created_at timestamp with time zone default now() not null
);
alter table domain_event_receipts add constraint domain_event_receipts_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table domain_event_receipts add constraint domain_event_receipts_event_id_fkey FOREIGN KEY (event_id) REFERENCES domain_events(id) ON DELETE CASCADE;
alter table domain_event_receipts add constraint domain_event_receipts_pkey PRIMARY KEY (subscriber, event_id);
CREATE INDEX domain_event_receipts_business_idx ON public.domain_event_receipts USING btree (business_id);
CREATE INDEX domain_event_receipts_event_idx ON public.domain_event_receipts USING btree (event_id);

create table domain_events (
  business_id uuid not null,
  id uuid not null,
  seq bigint generated always as identity not null,
  conversation_id uuid,
  type text not null,
  actor_type text not null,
  actor_id uuid,
  actor_name text,
  data jsonb default '{}'::jsonb not null,
  handled_at timestamp with time zone,
  created_at timestamp with time zone default now() not null
);
alter table domain_events add constraint domain_events_actor_type_check CHECK ((actor_type = ANY (ARRAY['member'::text, 'customer'::text, 'ai'::text, 'system'::text, 'api_key'::text])));
alter table domain_events add constraint domain_events_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table domain_events add constraint domain_events_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;
alter table domain_events add constraint domain_events_pkey PRIMARY KEY (id);
alter table domain_events add constraint domain_events_type_check CHECK ((type ~ '^[a-z_]+\.[a-z_]+$'::text));
CREATE INDEX domain_events_business_idx ON public.domain_events USING btree (business_id, seq);
CREATE INDEX domain_events_conversation_idx ON public.domain_events USING btree (conversation_id, seq) WHERE (conversation_id IS NOT NULL);

create table file_chunks (
  business_id uuid not null,
  storage_key text not null,
  seq integer not null,
  data bytea not null
);
alter table file_chunks add constraint file_chunks_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table file_chunks add constraint file_chunks_pkey PRIMARY KEY (storage_key, seq, business_id);
alter table file_chunks add constraint file_chunks_seq_check CHECK ((seq >= 0));
alter table file_chunks add constraint file_chunks_storage_key_business_id_fkey FOREIGN KEY (storage_key, business_id) REFERENCES uploads(storage_key, business_id) ON DELETE CASCADE;

create table inbound_events (
  id uuid default gen_random_uuid() not null,
  business_id uuid not null,
  channel_id uuid not null,
  kind text not null,
  dedupe_key text not null,
  event jsonb not null,
  raw_body text,
  received_at timestamp with time zone default now() not null,
  processed_at timestamp with time zone,
  seq bigint generated always as identity not null,
  failed_at timestamp with time zone,
  last_error text
);
alter table inbound_events add constraint inbound_events_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table inbound_events add constraint inbound_events_channel_dedupe_key UNIQUE (channel_id, dedupe_key, business_id);
alter table inbound_events add constraint inbound_events_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES channels(id) ON DELETE CASCADE;
alter table inbound_events add constraint inbound_events_kind_check CHECK ((kind = ANY (ARRAY['message'::text, 'receipt'::text])));
alter table inbound_events add constraint inbound_events_pkey PRIMARY KEY (id);
CREATE INDEX inbound_events_pending_idx ON public.inbound_events USING btree (channel_id, seq) WHERE ((processed_at IS NULL) AND (failed_at IS NULL));
CREATE INDEX inbound_events_unprocessed_idx ON public.inbound_events USING btree (received_at) WHERE (processed_at IS NULL);

create table kb_articles (
  id bigint generated always as identity not null,
  business_id uuid not null,
  title text not null,
  content text not null,
  tags text[] default '{}'::text[] not null,
  index_status text default 'pending'::text not null,
  index_error text,
  created_by uuid,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  search_vector tsvector generated always as ((setweight(to_tsvector('simple'::regconfig, title), 'A'::"char") || setweight(to_tsvector('simple'::regconfig, content), 'B'::"char"))) stored
);
alter table kb_articles add constraint kb_articles_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table kb_articles add constraint kb_articles_created_by_fkey FOREIGN KEY (created_by) REFERENCES users(id) ON DELETE SET NULL;
alter table kb_articles add constraint kb_articles_index_status_check CHECK ((index_status = ANY (ARRAY['pending'::text, 'indexed'::text, 'failed'::text])));
alter table kb_articles add constraint kb_articles_pkey PRIMARY KEY (id);
CREATE INDEX kb_articles_business_idx ON public.kb_articles USING btree (business_id, created_at DESC, id DESC);
CREATE INDEX kb_articles_business_search_idx ON public.kb_articles USING gin (business_id, search_vector);

create table kb_chunks (
  id bigint generated always as identity not null,
  article_id bigint not null,
  business_id uuid not null,
  ordinal integer not null,
  content text not null,
  model text not null,
  dims integer not null,
  embedding bytea not null,
  created_at timestamp with time zone default now() not null
);
alter table kb_chunks add constraint kb_chunks_article_id_fkey FOREIGN KEY (article_id) REFERENCES kb_articles(id) ON DELETE CASCADE;
alter table kb_chunks add constraint kb_chunks_article_ordinal_key UNIQUE (article_id, ordinal, business_id);
alter table kb_chunks add constraint kb_chunks_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table kb_chunks add constraint kb_chunks_check CHECK ((length(embedding) = (dims * 4)));
alter table kb_chunks add constraint kb_chunks_dims_check CHECK ((dims > 0));
alter table kb_chunks add constraint kb_chunks_ordinal_check CHECK ((ordinal >= 0));
alter table kb_chunks add constraint kb_chunks_pkey PRIMARY KEY (id);
CREATE INDEX kb_chunks_business_model_idx ON public.kb_chunks USING btree (business_id, model);

create table kb_index_versions (
  business_id uuid not null,
  version bigint not null
);
alter table kb_index_versions add constraint kb_index_versions_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table kb_index_versions add constraint kb_index_versions_pkey PRIMARY KEY (business_id);
alter table kb_index_versions add constraint kb_index_versions_version_check CHECK ((version > 0));

create table labels (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  name text not null,
  color text not null,
  description text default ''::text not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null
);
alter table labels add constraint labels_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table labels add constraint labels_color_check CHECK ((color ~ '^#[0-9a-f]{6}$'::text));
alter table labels add constraint labels_description_check CHECK ((char_length(description) <= 200));
alter table labels add constraint labels_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 50)));
alter table labels add constraint labels_pkey PRIMARY KEY (business_id, id);
CREATE UNIQUE INDEX labels_business_name_key ON public.labels USING btree (business_id, lower(name));

create table login_failures (
  id bigint generated always as identity not null,
  email text not null,
  ip text not null,
  at timestamp with time zone default now() not null
);
alter table login_failures add constraint login_failures_pkey PRIMARY KEY (id);
CREATE INDEX login_failures_address_idx ON public.login_failures USING btree (ip, at);
CREATE INDEX login_failures_at_idx ON public.login_failures USING btree (at);
CREATE INDEX login_failures_lookup_idx ON public.login_failures USING btree (email, ip, at);

create table mentions (
  id uuid default gen_random_uuid() not null,
  business_id uuid not null,
  member_id uuid not null,
  message_id uuid not null,
  conversation_id uuid not null,
  mentioned_by uuid,
  created_at timestamp with time zone default now() not null,
  read_at timestamp with time zone
);
alter table mentions add constraint mentions_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table mentions add constraint mentions_business_id_member_id_fkey FOREIGN KEY (business_id, member_id) REFERENCES team_members(business_id, id) ON DELETE CASCADE;
alter table mentions add constraint mentions_business_id_message_id_member_id_key UNIQUE (business_id, message_id, member_id);
alter table mentions add constraint mentions_pkey PRIMARY KEY (business_id, id);
CREATE INDEX mentions_member_idx ON public.mentions USING btree (business_id, member_id, ((read_at IS NOT NULL)), created_at DESC, id DESC);

create table message_counters (
  business_id uuid not null,
  month date not null,
  count integer default 0 not null,
  slot smallint default 0 not null,
  quota integer default 0 not null,
  quota_for integer default 0 not null
);
alter table message_counters add constraint message_counters_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table message_counters add constraint message_counters_pkey PRIMARY KEY (business_id, month, slot);

create table messages (
  id uuid default gen_random_uuid() not null,
  business_id uuid not null,
  conversation_id uuid not null,
  sender_type text not null,
  sender_id uuid,
  content text not null,
  attachments jsonb default '[]'::jsonb not null,
  delivery_status text,
  channel_id uuid,
  external_id text,
  error text,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  search_vector tsvector generated always as (to_tsvector('simple'::regconfig, content)) stored,
  delivery_attempts smallint default 0 not null,
  next_delivery_at timestamp with time zone,
  private boolean default false not null,
  template jsonb,
  send_at timestamp with time zone,
  html text,
  email jsonb
);
alter table messages add constraint messages_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table messages add constraint messages_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES channels(id) ON DELETE SET NULL;
alter table messages add constraint messages_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;
alter table messages add constraint messages_delivery_status_check CHECK ((delivery_status = ANY (ARRAY['scheduled'::text, 'queued'::text, 'sent'::text, 'delivered'::text, 'read'::text, 'failed'::text])));
alter table messages add constraint messages_html_length CHECK (((html IS NULL) OR (length(html) <= 524288)));
alter table messages add constraint messages_pkey PRIMARY KEY (id);
alter table messages add constraint messages_send_at_check CHECK (((delivery_status IS DISTINCT FROM 'scheduled'::text) OR (send_at IS NOT NULL)));
alter table messages add constraint messages_sender_id_fkey FOREIGN KEY (sender_id) REFERENCES users(id) ON DELETE SET NULL;
alter table messages add constraint messages_sender_type_check CHECK ((sender_type = ANY (ARRAY['agent'::text, 'customer'::text, 'ai'::text, 'system'::text])));
CREATE INDEX messages_business_created_idx ON public.messages USING btree (business_id, created_at DESC, id DESC);
CREATE INDEX messages_business_search_idx ON public.messages USING gin (business_id, search_vector);
CREATE UNIQUE INDEX messages_channel_external_idx ON public.messages USING btree (channel_id, external_id, business_id) WHERE (external_id IS NOT NULL);
CREATE INDEX messages_conversation_idx ON public.messages USING btree (conversation_id, created_at, id);
CREATE INDEX messages_queued_idx ON public.messages USING btree (conversation_id, created_at, id) WHERE (delivery_status = 'queued'::text);
CREATE INDEX messages_scheduled_due_idx ON public.messages USING btree (send_at) WHERE (delivery_status = 'scheduled'::text);
CREATE TRIGGER messages_reply_window AFTER INSERT ON public.messages FOR EACH ROW WHEN ((new.sender_type = 'customer'::text)) EXECUTE FUNCTION messages_move_reply_window();

create table plans (
  name text not null,
  rank integer not null,
  max_additional_agents integer not null,
  max_channels integer not null,
  widget_channels_only boolean not null,
  max_kb_articles integer not null,
  max_messages_per_month integer not null,
  ai_auto_reply boolean not null,
  max_storage_bytes bigint default 0 not null
);
alter table plans add constraint plans_name_check CHECK ((name = ANY (ARRAY['Free'::text, 'Mini'::text, 'Pro'::text])));
alter table plans add constraint plans_pkey PRIMARY KEY (name);
alter table plans add constraint plans_rank_key UNIQUE (rank);

create table rate_windows (
  key text not null,
  window_start timestamp with time zone default now() not null,
  count integer default 0 not null
);
alter table rate_windows add constraint rate_windows_pkey PRIMARY KEY (key);
CREATE INDEX rate_windows_start_idx ON public.rate_windows USING btree (window_start);

create table revoked_tokens (
  jti uuid not null,
  expires_at timestamp with time zone not null
);
alter table revoked_tokens add constraint revoked_tokens_pkey PRIMARY KEY (jti);
CREATE INDEX revoked_tokens_expires_idx ON public.revoked_tokens USING btree (expires_at);

create table schema_functions (
  name text not null,
  checksum text not null,
  applied_at timestamp with time zone default now() not null
);
alter table schema_functions add constraint schema_functions_pkey PRIMARY KEY (name);

create table schema_migrations (
  name text not null,
  applied_at timestamp with time zone default now() not null,
  checksum text
);
alter table schema_migrations add constraint schema_migrations_pkey PRIMARY KEY (name);

create table sla_breaches (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  conversation_id uuid not null,
  sla_policy_id uuid,
  target text not null,
  due_at timestamp with time zone not null,
  breached_at timestamp with time zone default now() not null
);
alter table sla_breaches add constraint sla_breaches_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table sla_breaches add constraint sla_breaches_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;
alter table sla_breaches add constraint sla_breaches_pkey PRIMARY KEY (business_id, id);
alter table sla_breaches add constraint sla_breaches_target_check CHECK ((target = ANY (ARRAY['first_response'::text, 'next_response'::text, 'resolution'::text])));
CREATE UNIQUE INDEX sla_breaches_once_key ON public.sla_breaches USING btree (business_id, conversation_id, target, due_at);

create table sla_policies (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  name text not null,
  first_response_minutes integer,
  next_response_minutes integer,
  resolution_minutes integer,
  business_hours_only boolean default false not null,
  channel_ids uuid[] default '{}'::uuid[] not null,
  label_ids uuid[] default '{}'::uuid[] not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null
);
alter table sla_policies add constraint sla_policies_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table sla_policies add constraint sla_policies_first_response_minutes_check CHECK (((first_response_minutes >= 1) AND (first_response_minutes <= 525600)));
alter table sla_policies add constraint sla_policies_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100)));
alter table sla_policies add constraint sla_policies_next_response_minutes_check CHECK (((next_response_minutes >= 1) AND (next_response_minutes <= 525600)));
alter table sla_policies add constraint sla_policies_pkey PRIMARY KEY (business_id, id);
alter table sla_policies add constraint sla_policies_resolution_minutes_check CHECK (((resolution_minutes >= 1) AND (resolution_minutes <= 525600)));
CREATE UNIQUE INDEX sla_policies_business_name_key ON public.sla_policies USING btree (business_id, lower(name));

create table sla_results (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  conversation_id uuid not null,
  sla_policy_id uuid,
  target text not null,
  started_at timestamp with time zone not null,
  due_at timestamp with time zone not null,
  met_at timestamp with time zone,
  hit boolean not null,
  settled_at timestamp with time zone not null
);
alter table sla_results add constraint sla_results_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table sla_results add constraint sla_results_check CHECK ((hit = ((met_at IS NOT NULL) AND (met_at <= due_at))));
alter table sla_results add constraint sla_results_check1 CHECK ((settled_at =
CASE
    WHEN hit THEN met_at
    ELSE due_at
END));
alter table sla_results add constraint sla_results_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;
alter table sla_results add constraint sla_results_pkey PRIMARY KEY (business_id, id);
alter table sla_results add constraint sla_results_target_check CHECK ((target = ANY (ARRAY['first_response'::text, 'next_response'::text, 'resolution'::text])));
CREATE UNIQUE INDEX sla_results_once_key ON public.sla_results USING btree (business_id, conversation_id, target, started_at);
CREATE INDEX sla_results_settled_idx ON public.sla_results USING btree (business_id, settled_at) INCLUDE (target, hit, sla_policy_id);

create table stripe_events (
  id text not null,
  type text not null,
  business_id uuid,
  received_at timestamp with time zone default now() not null
);
alter table stripe_events add constraint stripe_events_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE SET NULL;
alter table stripe_events add constraint stripe_events_pkey PRIMARY KEY (id);

create table team_members (
  id uuid default gen_random_uuid() not null,
  business_id uuid not null,
  user_id uuid not null,
  role text not null,
  status text default 'offline'::text not null,
  is_active boolean default true not null,
  agent_number integer not null,
  invited_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  max_open integer,
  email_signature text
);
alter table team_members add constraint team_members_business_id_agent_number_key UNIQUE (business_id, agent_number);
alter table team_members add constraint team_members_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table team_members add constraint team_members_business_id_key UNIQUE (business_id, id);
alter table team_members add constraint team_members_email_signature_length CHECK (((email_signature IS NULL) OR (length(email_signature) <= 2000)));
alter table team_members add constraint team_members_max_open_check CHECK (((max_open >= 0) AND (max_open <= 1000)));
alter table team_members add constraint team_members_pkey PRIMARY KEY (id);
alter table team_members add constraint team_members_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'agent'::text])));
alter table team_members add constraint team_members_status_check CHECK ((status = ANY (ARRAY['live'::text, 'away'::text, 'offline'::text])));
alter table team_members add constraint team_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
alter table team_members add constraint team_members_user_id_key UNIQUE (user_id);
CREATE INDEX team_members_business_idx ON public.team_members USING btree (business_id, agent_number);
CREATE TRIGGER team_members_revoke_api_keys AFTER DELETE ON public.team_members FOR EACH ROW EXECUTE FUNCTION team_member_revoke_api_keys();

create table team_memberships (
  business_id uuid not null,
  team_id uuid not null,
  member_id uuid not null,
  created_at timestamp with time zone default now() not null
);
alter table team_memberships add constraint team_memberships_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table team_memberships add constraint team_memberships_business_id_member_id_fkey FOREIGN KEY (business_id, member_id) REFERENCES team_members(business_id, id) ON DELETE CASCADE;
alter table team_memberships add constraint team_memberships_business_id_team_id_fkey FOREIGN KEY (business_id, team_id) REFERENCES teams(business_id, id) ON DELETE CASCADE;
alter table team_memberships add constraint team_memberships_pkey PRIMARY KEY (business_id, team_id, member_id);
CREATE INDEX team_memberships_member_idx ON public.team_memberships USING btree (business_id, member_id, team_id);

create table teams (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  name text not null,
  description text default ''::text not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null
);
alter table teams add constraint teams_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table teams add constraint teams_description_check CHECK ((char_length(description) <= 500));
alter table teams add constraint teams_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 80)));
alter table teams add constraint teams_pkey PRIMARY KEY (business_id, id);
CREATE UNIQUE INDEX teams_business_name_key ON public.teams USING btree (business_id, lower(name));

create table uploads (
  id uuid default gen_random_uuid() not null,
  business_id uuid not null,
  conversation_id uuid,
  storage_key text not null,
  filename text not null,
  content_type text not null,
  size integer not null,
  uploaded_by uuid,
  created_at timestamp with time zone default now() not null,
  driver text default 'disk'::text not null,
  chunk_size integer,
  source text default 'upload'::text not null
);
alter table uploads add constraint uploads_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table uploads add constraint uploads_chunk_size_check CHECK ((chunk_size > 0));
alter table uploads add constraint uploads_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE SET NULL;
alter table uploads add constraint uploads_driver_check CHECK ((driver = ANY (ARRAY['disk'::text, 'postgres'::text, 's3'::text])));
alter table uploads add constraint uploads_pkey PRIMARY KEY (id);
alter table uploads add constraint uploads_source_check CHECK ((source = ANY (ARRAY['upload'::text, 'inbound'::text])));
alter table uploads add constraint uploads_storage_key_key UNIQUE (storage_key, business_id);
alter table uploads add constraint uploads_uploaded_by_fkey FOREIGN KEY (uploaded_by) REFERENCES users(id) ON DELETE SET NULL;
CREATE INDEX uploads_business_idx ON public.uploads USING btree (business_id, created_at);
CREATE INDEX uploads_unattached_sweep_idx ON public.uploads USING btree (created_at) WHERE (source = 'upload'::text);

create table users (
  id uuid default gen_random_uuid() not null,
  email text not null,
  full_name text not null,
  password_hash text,
  is_verified boolean default false not null,
  is_google_account boolean default false not null,
  google_sub text,
  avatar_url text,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  token_generation integer default 0 not null,
  two_factor_secret text,
  two_factor_pending_secret text,
  two_factor_enabled_at timestamp with time zone,
  two_factor_last_step bigint default 0 not null,
  two_factor_recovery_hashes bytea[] default '{}'::bytea[] not null
);
alter table users add constraint users_email_check CHECK ((email = lower(email)));
alter table users add constraint users_email_key UNIQUE (email);
alter table users add constraint users_google_sub_key UNIQUE (google_sub);
alter table users add constraint users_pkey PRIMARY KEY (id);
alter table users add constraint users_two_factor_enabled_check CHECK (((two_factor_secret IS NULL) = (two_factor_enabled_at IS NULL)));

create table webhook_deliveries (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  webhook_id uuid not null,
  event_id uuid not null,
  event_type text not null,
  body text not null,
  status text default 'pending'::text not null,
  attempts integer default 0 not null,
  response_status integer,
  response_ms integer,
  last_error text,
  created_at timestamp with time zone default now() not null,
  last_attempt_at timestamp with time zone,
  delivered_at timestamp with time zone,
  redelivery_of uuid
);
alter table webhook_deliveries add constraint webhook_deliveries_business_id_webhook_id_fkey FOREIGN KEY (business_id, webhook_id) REFERENCES webhook_endpoints(business_id, id) ON DELETE CASCADE;
alter table webhook_deliveries add constraint webhook_deliveries_pkey PRIMARY KEY (business_id, id);
alter table webhook_deliveries add constraint webhook_deliveries_redelivery_of_fkey FOREIGN KEY (business_id, redelivery_of) REFERENCES webhook_deliveries(business_id, id) ON DELETE SET NULL (redelivery_of);
alter table webhook_deliveries add constraint webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])));
CREATE UNIQUE INDEX webhook_deliveries_event_key ON public.webhook_deliveries USING btree (business_id, webhook_id, event_id) WHERE (redelivery_of IS NULL);
CREATE INDEX webhook_deliveries_list_idx ON public.webhook_deliveries USING btree (business_id, webhook_id, created_at DESC, id DESC);

create table webhook_endpoints (
  business_id uuid not null,
  id uuid default gen_random_uuid() not null,
  url text not null,
  events text[] not null,
  active boolean default true not null,
  secret_encrypted text not null,
  disabled_reason text,
  last_success_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null
);
alter table webhook_endpoints add constraint webhook_endpoints_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table webhook_endpoints add constraint webhook_endpoints_events_check CHECK ((cardinality(events) >= 1));
alter table webhook_endpoints add constraint webhook_endpoints_pkey PRIMARY KEY (business_id, id);
alter table webhook_endpoints add constraint webhook_endpoints_url_check CHECK (((char_length(url) >= 1) AND (char_length(url) <= 2000)));
CREATE INDEX webhook_endpoints_list_idx ON public.webhook_endpoints USING btree (business_id, created_at DESC, id DESC);

create table widgets (
  id uuid default gen_random_uuid() not null,
  business_id uuid not null,
  name text default 'Chat Widget'::text not null,
  domain text not null,
  welcome_heading text default 'Hi there!'::text not null,
  welcome_tagline text default 'We make it simple to connect with us. Ask us anything, or share your feedback.'::text not null,
  primary_color text default '#7650FF'::text not null,
  show_online_badge boolean default true not null,
  logo_url text,
  config jsonb default '{}'::jsonb not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  identity_secret_encrypted text
);
alter table widgets add constraint widgets_business_id_domain_key UNIQUE (business_id, domain);
alter table widgets add constraint widgets_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses(id) ON DELETE CASCADE;
alter table widgets add constraint widgets_pkey PRIMARY KEY (id);
CREATE INDEX widgets_business_created_idx ON public.widgets USING btree (business_id, created_at, id);

create table worker_heartbeats (
  worker_id text not null,
  seen_at timestamp with time zone default now() not null
);
alter table worker_heartbeats add constraint worker_heartbeats_pkey PRIMARY KEY (worker_id);
CREATE INDEX worker_heartbeats_seen_idx ON public.worker_heartbeats USING btree (seen_at);

CREATE OR REPLACE FUNCTION public.business_clock(t timestamp with time zone, marks double precision[], base double precision[], open_before double precision[])
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select least(
    base[width_bucket(date_part('epoch', t - '1970-01-01 00:00:00+00'::timestamptz), marks)] + date_part('epoch', t - '1970-01-01 00:00:00+00'::timestamptz),
    open_before[width_bucket(date_part('epoch', t - '1970-01-01 00:00:00+00'::timestamptz), marks) + 1])
$function$
;

CREATE OR REPLACE FUNCTION public.business_local_instant(wall timestamp without time zone, tz text)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select coalesce(
    (select min(c) from (values (x.b), (x.a)) v(c) where c at time zone tz = wall),
    x.b)
  from (select
    (wall - ((((wall - interval '1 day') at time zone 'UTC') at time zone tz) - (wall - interval '1 day'))) at time zone 'UTC' as b,
    (wall - ((((wall + interval '1 day') at time zone 'UTC') at time zone tz) - (wall + interval '1 day'))) at time zone 'UTC' as a) x
$function$
;

CREATE OR REPLACE FUNCTION public.business_open_seconds(tz text, week jsonb, holidays date[], a timestamp with time zone, b timestamp with time zone)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case
    when a is null or b is null then null
    when not exists (select 1 from jsonb_each(week) d where jsonb_typeof(d.value) = 'array' and jsonb_array_length(d.value) > 0) then null
    else sign(date_part('epoch', b - a)) * coalesce((
      select sum(date_part('epoch', upper(r) - lower(r)))
      from unnest((
        select range_agg(tstzrange(p.o, p.e)) * tstzmultirange(tstzrange(least(a, b), greatest(a, b)))
        from (
          select business_local_instant(d::date + (s ->> 'open')::interval, tz) as o,
                 business_local_instant(d::date + (s ->> 'close')::interval, tz) as e
          from generate_series((least(a, b) at time zone tz)::date - 1, (greatest(a, b) at time zone tz)::date + 1, interval '1 day') d
          cross join lateral jsonb_array_elements(coalesce(week -> (array['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'])[extract(dow from d)::int + 1], '[]')) s
          where d::date <> all (holidays)
        ) p
        where p.e > p.o
      )) r
    ), 0)
  end
$function$
;

CREATE OR REPLACE FUNCTION public.conversation_default_team()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if new.team_id is null and new.channel_id is not null then
    select ch.default_team_id into new.team_id from channels ch where ch.id = new.channel_id and ch.business_id = new.business_id;
  end if;
  return new;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.conversations_business_durations()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_first boolean := tg_op = 'INSERT' or new.first_response_at is distinct from old.first_response_at or new.created_at is distinct from old.created_at;
  v_resolution boolean := tg_op = 'INSERT' or new.resolved_at is distinct from old.resolved_at or new.created_at is distinct from old.created_at;
  v_hours business_hours;
begin
  if v_first then new.first_response_business_seconds := null; end if;
  if v_resolution then new.resolution_business_seconds := null; end if;
  if (v_first and new.first_response_at is not null) or (v_resolution and new.resolved_at is not null) then
    select * into v_hours from business_hours h where h.business_id = new.business_id and h.enabled;
    if found then
      if v_first then
        new.first_response_business_seconds := business_open_seconds(v_hours.timezone, v_hours.week, v_hours.holidays, new.created_at, new.first_response_at);
      end if;
      if v_resolution then
        new.resolution_business_seconds := business_open_seconds(v_hours.timezone, v_hours.week, v_hours.holidays, new.created_at, new.resolved_at);
      end if;
    end if;
  end if;
  return new;
end
$function$
;

CREATE OR REPLACE FUNCTION public.delivery_arm_drain(p_conversation_id uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  perform pg_advisory_xact_lock_shared(20203, hashtext(p_conversation_id::text));
  if graphile_job_waiting('deliver:' || p_conversation_id::text, false) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'deliver_message',
    payload => json_build_object('conversation_id', p_conversation_id::text),
    job_key => 'deliver:' || p_conversation_id::text
  );
end;
$function$
;

CREATE OR REPLACE FUNCTION public.delivery_drain_enter(p_job_id bigint, p_conversation_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  if pg_try_advisory_lock(20204, hashtext(p_conversation_id::text)) then
    -- The key is given up: a reply stored from here on arms the next drain.
    perform graphile_job_release_key(p_job_id, 'deliver:' || p_conversation_id::text);
    return true;
  end if;
  -- Held: with STORE exclusive (no drain leaves meanwhile), try once more, else come back.
  perform pg_advisory_xact_lock(20203, hashtext(p_conversation_id::text));
  perform graphile_job_release_key(p_job_id, 'deliver:' || p_conversation_id::text);
  if pg_try_advisory_lock(20204, hashtext(p_conversation_id::text)) then
    return true;
  end if;
  perform graphile_worker.add_job(
    identifier => 'deliver_message',
    payload => json_build_object('conversation_id', p_conversation_id::text),
    job_key => 'deliver:' || p_conversation_id::text,
    run_at => now() + interval '1 second'
  );
  return false;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.delivery_drain_leave(p_conversation_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  perform pg_advisory_xact_lock(20203, hashtext(p_conversation_id::text));
  if exists (select 1 from messages m where m.conversation_id = p_conversation_id and m.delivery_status = 'queued') then
    return false;
  end if;
  perform pg_advisory_unlock(20204, hashtext(p_conversation_id::text));
  delete from graphile_worker._private_jobs j where j.key = 'deliver:' || p_conversation_id::text and j.locked_at is null;
  return true;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.domain_events_record(p_events jsonb, p_handled text[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  v_jobs bigint;
begin
  if p_events is null or jsonb_array_length(p_events) = 0 then
    return;
  end if;
  with recorded as (
    insert into domain_events (business_id, id, conversation_id, type, actor_type, actor_id, actor_name, data, handled_at)
    select e.business_id, uuid_v7(), e.conversation_id, e.type, e.actor_type, e.actor_id, e.actor_name, coalesce(e.data, '{}'),
           case when (e.business_id::text || ':' || e.type) = any(p_handled) then null else now() end
    from rows from (jsonb_to_recordset(p_events) as (business_id uuid, conversation_id uuid, type text, actor_type text, actor_id uuid, actor_name text, data jsonb)) with ordinality as e(business_id, conversation_id, type, actor_type, actor_id, actor_name, data, n)
    order by e.n
    returning id, seq, business_id, conversation_id, handled_at
  )
  select count(graphile_worker.add_job(
    identifier => 'handle_events',
    payload => json_build_object('event_ids', g.ids),
    queue_name => 'events:' || (abs(hashtext(g.key::text)) % 64)::text,
    max_attempts => 10
  )) into v_jobs
  from (
    select coalesce(r.conversation_id, r.business_id) as key, array_agg(r.id order by r.seq) as ids
    from recorded r where r.handled_at is null
    group by 1
    order by min(r.seq)
  ) g;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.graphile_job_release_key(p_job_id bigint, p_key text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  update graphile_worker._private_jobs set key = null where id = p_job_id and key = p_key;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.graphile_job_waiting(p_key text, p_unattempted boolean)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  return exists (
    select 1 from graphile_worker._private_jobs j
    where j.key = p_key and j.locked_at is null and (not p_unattempted or j.attempts = 0)
  );
end;
$function$
;

CREATE OR REPLACE FUNCTION public.inbound_apply_message(p_business_id uuid, p_channel_id uuid, p_channel_type text, p_from_id text, p_from_name text, p_from_email text, p_from_phone text, p_external_id text, p_text text, p_attachments jsonb, p_subject text, p_references text[])
 RETURNS TABLE(applied_message_id uuid, applied_conversation_id uuid, opened_conversation boolean)
 LANGUAGE plpgsql
AS $function$
declare
  v_customer uuid;
  v_into uuid;
  v_conversation uuid;
  v_status text;
  v_assignee uuid;
  v_opened boolean := false;
  v_message uuid;
  -- One instant for the message and its conversation (last_message_at, the reply window).
  v_now timestamptz := clock_timestamp();
begin
  perform pg_advisory_xact_lock(hashtext(p_channel_id::text || ':' || p_from_id));
  if exists (select 1 from messages m where m.channel_id = p_channel_id and m.external_id = p_external_id) then
    return;
  end if;

  -- The customer's row is locked (by the upsert, or FOR SHARE on the way to the customer a
  -- merged identity points at) until this message commits: a merge or an erasure of that
  -- customer waits for it, or this message waits for them and follows (a merged identity to the
  -- customer it was merged into; an erased one to a new customer).
  loop
    insert into customers as cu (business_id, channel_id, platform_user_id, name, email, phone)
    values (p_business_id, p_channel_id, p_from_id, p_from_name, p_from_email, p_from_phone)
    on conflict (channel_id, platform_user_id, business_id) where platform_user_id is not null do update set
      name = case when excluded.name <> '' and (cu.edited_at is null or cu.name = '') then excluded.name else cu.name end,
      email = case when cu.edited_at is null then coalesce(excluded.email, cu.email) else coalesce(cu.email, excluded.email) end,
      phone = case when cu.edited_at is null then coalesce(excluded.phone, cu.phone) else coalesce(cu.phone, excluded.phone) end,
      updated_at = now()
      where cu.merged_into is null and cu.erasing_at is null
    returning cu.id into v_customer;
    exit when v_customer is not null;
    select cu.id, cu.merged_into into v_customer, v_into from customers cu
    where cu.channel_id = p_channel_id and cu.platform_user_id = p_from_id and cu.business_id = p_business_id
    for share;
    -- An erasure under way: the message joins what the erase_customer job removes.
    exit when v_customer is not null and v_into is null;
    if v_into is not null then
      select cu.id into v_customer from customers cu
      where cu.id = v_into and cu.business_id = p_business_id and cu.merged_into is null
      for share;
      exit when v_customer is not null;
    end if;
    -- Gone or merged on meanwhile: look again.
    v_customer := null;
  end loop;

  if p_references is not null then
    select c.id, c.status, c.assignee_id into v_conversation, v_status, v_assignee
    from messages m join conversations c on c.id = m.conversation_id
    where m.channel_id = p_channel_id and m.external_id = any(p_references)
      and c.customer_id = v_customer
    order by array_position(p_references, m.external_id), m.created_at desc
    limit 1;
  else
    select c.id, c.status, c.assignee_id into v_conversation, v_status, v_assignee
    from conversations c
    where c.customer_id = v_customer and c.channel_id = p_channel_id
    order by c.updated_at desc, c.id desc
    limit 1;
  end if;

  if v_conversation is not null and v_status <> 'closed' then
    update conversations c set
      status = case when c.status = 'resolved' then 'open' else c.status end,
      resolved_at = case when c.status = 'resolved' then null else c.resolved_at end,
      resolved_by = case when c.status = 'resolved' then null else c.resolved_by end,
      -- The customer wrote: a snoozed conversation wakes (docs/decisions.md#snooze-priority-bulk-and-scheduled-send).
      snoozed_at = null, snoozed_until = null,
      -- WhatsApp's reply window moves in this update, so the messages_reply_window trigger
      -- finds it moved already and writes nothing: one update of the conversation, not two.
      reply_window_expires_at = case
        when c.channel_type = 'whatsapp' and (c.reply_window_expires_at is null or c.reply_window_expires_at < v_now + interval '24 hours')
        then v_now + interval '24 hours' else c.reply_window_expires_at end,
      last_message_at = v_now, updated_at = v_now
    where c.id = v_conversation;
  else
    insert into conversations as c (business_id, customer_id, channel_id, channel_type, status, subject, last_message_at, created_at, updated_at, reply_window_expires_at)
    values (p_business_id, v_customer, p_channel_id, p_channel_type, 'open', p_subject, v_now, v_now, v_now,
            case when p_channel_type = 'whatsapp' then v_now + interval '24 hours' end)
    returning c.id into v_conversation;
    v_opened := true;
    v_assignee := null;
  end if;

  insert into messages as m (business_id, conversation_id, sender_type, content, attachments, channel_id, external_id, created_at, updated_at)
  values (p_business_id, v_conversation, 'customer', p_text, p_attachments, p_channel_id, p_external_id, v_now, v_now)
  on conflict (channel_id, external_id, business_id) where external_id is not null do nothing
  returning m.id into v_message;
  if v_message is null then
    return;
  end if;
  return query select v_message, v_conversation, v_opened;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.inbound_apply_messages(p_business_id uuid, p_channel_id uuid, p_channel_type text, p_messages jsonb)
 RETURNS TABLE(idx integer, applied_message_id uuid, applied_conversation_id uuid, opened_conversation boolean)
 LANGUAGE plpgsql
AS $function$
declare
  v_message jsonb;
  v_index integer := 0;
begin
  for v_message in select value from jsonb_array_elements(p_messages) loop
    return query
      select v_index, a.applied_message_id, a.applied_conversation_id, a.opened_conversation
      from inbound_apply_message(
        p_business_id, p_channel_id, p_channel_type,
        v_message->'from'->>'platformUserId', coalesce(v_message->'from'->>'name', ''),
        v_message->'from'->>'email', v_message->'from'->>'phone',
        v_message->>'externalId', v_message->>'text', coalesce(v_message->'attachments', '[]'::jsonb),
        v_message->>'subject',
        case when jsonb_typeof(v_message->'references') = 'array'
          then array(select jsonb_array_elements_text(v_message->'references')) end
      ) as a;
    v_index := v_index + 1;
  end loop;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.inbound_arm_drain(p_channel_id uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  perform pg_advisory_xact_lock_shared(20201, hashtext(p_channel_id::text));
  if graphile_job_waiting('inbound:' || p_channel_id::text, true) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'process_inbound',
    payload => json_build_object('channel_id', p_channel_id::text),
    job_key => 'inbound:' || p_channel_id::text
  );
end;
$function$
;

CREATE OR REPLACE FUNCTION public.inbound_drain_enter(p_job_id bigint, p_channel_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  if pg_try_advisory_lock(20202, hashtext(p_channel_id::text)) then
    -- The key is given up: an event stored from here on arms the next drain.
    perform graphile_job_release_key(p_job_id, 'inbound:' || p_channel_id::text);
    return true;
  end if;
  -- Held: with STORE exclusive (no drain leaves meanwhile), try once more, else come back.
  perform pg_advisory_xact_lock(20201, hashtext(p_channel_id::text));
  perform graphile_job_release_key(p_job_id, 'inbound:' || p_channel_id::text);
  if pg_try_advisory_lock(20202, hashtext(p_channel_id::text)) then
    return true;
  end if;
  perform graphile_worker.add_job(
    identifier => 'process_inbound',
    payload => json_build_object('channel_id', p_channel_id::text),
    job_key => 'inbound:' || p_channel_id::text,
    run_at => now() + interval '1 second'
  );
  return false;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.inbound_drain_leave(p_channel_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  perform pg_advisory_xact_lock(20201, hashtext(p_channel_id::text));
  if exists (select 1 from inbound_events e where e.channel_id = p_channel_id and e.processed_at is null and e.failed_at is null) then
    return false;
  end if;
  perform pg_advisory_unlock(20202, hashtext(p_channel_id::text));
  delete from graphile_worker._private_jobs j where j.key = 'inbound:' || p_channel_id::text and j.locked_at is null;
  return true;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.messages_move_reply_window()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  update conversations c set reply_window_expires_at = new.created_at + interval '24 hours'
  where c.id = new.conversation_id and c.channel_type = 'whatsapp'
    and (c.reply_window_expires_at is null or c.reply_window_expires_at < new.created_at + interval '24 hours');
  return null;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.reserve_monthly_message(p_business_id uuid, OUT plan_name text, OUT plan_max integer, OUT reserved boolean)
 RETURNS record
 LANGUAGE plpgsql
AS $function$
declare
  slots constant integer := 8;
  v_month date := date_trunc('month', now() at time zone 'utc')::date;
  v_slot smallint;
  v_total bigint;
  v_free integer;
begin
  select p.name, p.max_messages_per_month into plan_name, plan_max
  from businesses b join plans p on p.name = b.plan where b.id = p_business_id;

  -- Fast path: a slot with quota left, split from the current limit, that no one holds now.
  select c.slot into v_slot from message_counters c
  where c.business_id = p_business_id and c.month = v_month and c.count < c.quota and c.quota_for = plan_max
  order by random() limit 1
  for update skip locked;
  if found then
    update message_counters set count = count + 1
    where business_id = p_business_id and month = v_month and slot = v_slot;
    reserved := true;
    return;
  end if;

  -- Exact path: every slot locked (in slot order), then counted (each statement of a volatile
  -- function sees what committed before it, so every fast path that held a slot is counted).
  insert into message_counters (business_id, month, slot) values (p_business_id, v_month, 0) on conflict do nothing;
  perform 1 from message_counters where business_id = p_business_id and month = v_month order by slot for update;
  select coalesce(sum(count), 0) into v_total from message_counters where business_id = p_business_id and month = v_month;
  if v_total >= plan_max then
    reserved := false;
    return;
  end if;
  update message_counters set count = count + 1 where business_id = p_business_id and month = v_month and slot = 0;
  v_free := plan_max - v_total - 1;
  if v_free >= 2 * slots then
    -- Split what is left: slot i may count up to its count plus its share.
    insert into message_counters (business_id, month, slot)
    select p_business_id, v_month, s from generate_series(1, slots - 1) as s on conflict do nothing;
    update message_counters c set
      quota = c.count + v_free / slots + case when c.slot < v_free % slots then 1 else 0 end,
      quota_for = plan_max
    where c.business_id = p_business_id and c.month = v_month;
  else
    -- Close to the limit: exact path only.
    update message_counters c set quota = c.count, quota_for = plan_max
    where c.business_id = p_business_id and c.month = v_month;
  end if;
  reserved := true;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.team_member_revoke_api_keys()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  update api_keys set revoked_at = now()
  where business_id = old.business_id and member_id = old.id and revoked_at is null;
  return null;
end;
$function$
;

CREATE OR REPLACE FUNCTION public.uuid_v7()
 RETURNS uuid
 LANGUAGE sql
 PARALLEL SAFE
AS $function$
  select encode(
    set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1),
    'hex')::uuid
$function$
;
