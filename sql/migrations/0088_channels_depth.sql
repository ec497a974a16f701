-- Channels in depth (issue 19 items 1, 2, 4, 5): files shared by every node, inbound media
-- downloaded, WhatsApp's 24-hour window and templates.

-- 1. Files shared by every node. An upload's bytes live where its `driver` says: `disk`
-- (DATA_DIR/uploads/<key>: every upload before this migration, and the embedded `npm start`) or
-- `postgres` (file_chunks below: the default with DATABASE_URL, so any web or worker node serves
-- any file). A row always names its driver, so a change of STORAGE_DRIVER never loses a file.
alter table uploads
  add column driver text not null default 'disk' check (driver in ('disk', 'postgres')),
  -- Bytes per chunk of a `postgres` file (every chunk but the last is this long): ranges are
  -- read from the chunks they need.
  add column chunk_size integer check (chunk_size > 0),
  -- Where it came from: an agent's upload, or a customer's inbound attachment (fetch_attachment).
  add column source text not null default 'upload' check (source in ('upload', 'inbound'));

-- The bytes of `postgres` files, in order. The upload row comes first in the same transaction,
-- so a file is either whole with its row or not there at all; deleting the row deletes the bytes.
create table file_chunks (
  business_id uuid not null references businesses (id) on delete cascade,
  storage_key text not null,
  seq integer not null check (seq >= 0),
  data bytea not null,
  primary key (storage_key, seq, business_id),
  foreign key (storage_key, business_id) references uploads (storage_key, business_id) on delete cascade
);
-- Chunks are read back in order, a few at a time: TOAST would only compress already compressed
-- media (photos, voice notes) and cost CPU both ways.
alter table file_chunks alter column data set storage external;

-- 4. WhatsApp's 24-hour customer service window: a free-form reply is allowed until 24 hours
-- after the customer's last message (Meta refuses it after, code 131047). Kept on the
-- conversation by a trigger on customer messages, so every path that stores one (the inbound
-- SQL functions, tests, imports) moves it. Null: not a windowed channel, or the customer never wrote.
alter table conversations add column reply_window_expires_at timestamptz;

create or replace function messages_move_reply_window() returns trigger
language plpgsql as $$
begin
  update conversations c set reply_window_expires_at = new.created_at + interval '24 hours'
  where c.id = new.conversation_id and c.channel_type = 'whatsapp'
    and (c.reply_window_expires_at is null or c.reply_window_expires_at < new.created_at + interval '24 hours');
  return null;
end;
$$;

create trigger messages_reply_window after insert on messages
  for each row when (new.sender_type = 'customer') execute function messages_move_reply_window();

update conversations c set reply_window_expires_at = w.last_at + interval '24 hours'
from (
  select m.conversation_id, max(m.created_at) as last_at from messages m
  join conversations c2 on c2.id = m.conversation_id
  where m.sender_type = 'customer' and c2.channel_type = 'whatsapp'
  group by m.conversation_id
) w
where c.id = w.conversation_id;

-- A template reply: `{name, language, parameters}`; the connector sends it as a WhatsApp
-- template message (allowed outside the window). Null for every other message.
alter table messages add column template jsonb;

-- The approved message templates of a WhatsApp channel's Business Account, as last synced from
-- Graph (GET /channels/{id}/templates?refresh=true). The channel's (id, business_id) key lets
-- the foreign key carry the distribution column.
create unique index channels_id_business_key on channels (id, business_id);

create table channel_templates (
  business_id uuid not null references businesses (id) on delete cascade,
  channel_id uuid not null,
  name text not null,
  language text not null,
  category text not null default '',
  status text not null,
  -- The body text with its {{1}}, {{2}} placeholders, and how many it has.
  body text not null default '',
  parameter_count integer not null default 0,
  components jsonb not null default '[]',
  synced_at timestamptz not null default now(),
  -- The list's keyset order, and one row per template and language.
  primary key (channel_id, name, language, business_id),
  foreign key (channel_id, business_id) references channels (id, business_id) on delete cascade
);
