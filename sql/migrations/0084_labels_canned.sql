-- Labels and canned responses (issue #22 items 2 and 3).
--
-- Both belong to one business: the primary key is (business_id, id), so every key and foreign
-- key between these tables carries the distribution column (docs/scaling.md). Names and short
-- codes are unique per business whatever their case; that unique index is also the list's
-- keyset order (lower(name), then nothing else is needed: it is unique).

create table labels (
  business_id uuid not null references businesses (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 50),
  color text not null check (color ~ '^#[0-9a-f]{6}$'),
  description text not null default '' check (char_length(description) <= 200),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (business_id, id)
);
create unique index labels_business_name_key on labels (business_id, lower(name));

-- Which conversation carries which label. A conversation's labels are read by the primary key
-- (one query for a page of conversations); GET /conversations?label= probes it per row while
-- walking the business's newest conversations, or starts from the label's own index below when
-- the label is rare (the planner picks).
create table conversation_labels (
  business_id uuid not null references businesses (id) on delete cascade,
  conversation_id uuid not null references conversations (id) on delete cascade,
  label_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (business_id, conversation_id, label_id),
  foreign key (business_id, label_id) references labels (business_id, id) on delete cascade
);
create index conversation_labels_label_idx on conversation_labels (business_id, label_id, conversation_id);

create table canned_responses (
  business_id uuid not null references businesses (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  short_code text not null check (char_length(short_code) between 1 and 50),
  content text not null check (char_length(content) between 1 and 10000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (business_id, id)
);
create unique index canned_responses_business_code_key on canned_responses (business_id, lower(short_code));
