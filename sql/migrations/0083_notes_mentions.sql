-- Private notes and mentions (issue #22 item 1; docs/decisions.md#private-notes-and-mentions).
--
-- A note is a message with `private = true`: written by a member for the team, never delivered,
-- never shown to the customer (visitor API, widget, AI agent's history), not counted against the
-- month. A constant default adds the column without rewriting `messages`.
alter table messages add column private boolean not null default false;

-- Mentions reference their member by (business_id, id), so the key holds the distribution column
-- (docs/scaling.md): the membership's id alone is unique already, this only states it with
-- business_id for the foreign key below. A small table; the index is built at once.
alter table team_members add constraint team_members_business_id_key unique (business_id, id);

-- One row per member named in a note. `member_id` is the mentioned membership (team_members.id),
-- deleted with it; `mentioned_by` the author's user id (no foreign key: users is a global
-- table, and an author who leaves keeps their notes). No foreign key to messages: that would need
-- a second unique index on the hottest table, and messages are only ever deleted with their
-- business, whose deletion cascades here too.
create table mentions (
  id uuid not null default gen_random_uuid(),
  business_id uuid not null references businesses (id) on delete cascade,
  member_id uuid not null,
  message_id uuid not null,
  conversation_id uuid not null,
  mentioned_by uuid,
  created_at timestamptz not null default now(),
  read_at timestamptz,
  primary key (business_id, id),
  unique (business_id, message_id, member_id),
  foreign key (business_id, member_id) references team_members (business_id, id) on delete cascade
);

-- GET /api/v1/mentions: one member's mentions, unread first, newest first within each part; the
-- keyset walks the unread part, then the read part, each a range of this index.
create index mentions_member_idx on mentions (business_id, member_id, (read_at is not null), created_at desc, id desc);
