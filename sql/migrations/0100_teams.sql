-- Teams (issue #18 item 2): groups of agents, a conversation's team, a channel's default team,
-- and team-scoped visibility.
--
-- Like labels, a team belongs to one business: the primary key is (business_id, id) and every
-- key and foreign key between these tables carries the distribution column (docs/scaling.md).

create table teams (
  business_id uuid not null references businesses (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 80),
  description text not null default '' check (char_length(description) <= 500),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (business_id, id)
);
-- Names are unique per business whatever their case; also the list's keyset order.
create unique index teams_business_name_key on teams (business_id, lower(name));

-- Who is in which team. A member leaving the business (team_members row deleted) or a team
-- deleted takes its rows along. The primary key serves a team's member list; the second index
-- serves "the teams of this member" (visibility, auto-assignment).
create table team_memberships (
  business_id uuid not null references businesses (id) on delete cascade,
  team_id uuid not null,
  member_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (business_id, team_id, member_id),
  foreign key (business_id, team_id) references teams (business_id, id) on delete cascade,
  foreign key (business_id, member_id) references team_members (business_id, id) on delete cascade
);
create index team_memberships_member_idx on team_memberships (business_id, member_id, team_id);

-- A conversation's team (null: none). Deleting a team leaves its conversations without one.
alter table conversations add column team_id uuid;
alter table conversations add constraint conversations_team_fkey
  foreign key (business_id, team_id) references teams (business_id, id) on delete set null (team_id);
-- GET /conversations?team_id=: the team's conversations, most recently updated first.
create index conversations_business_team_idx on conversations (business_id, team_id, updated_at desc, id desc) where team_id is not null;

-- A channel's default team: conversations opened on the channel start in it.
alter table channels add column default_team_id uuid;
alter table channels add constraint channels_default_team_fkey
  foreign key (business_id, default_team_id) references teams (business_id, id) on delete set null (default_team_id);

-- Team-scoped visibility: agents see only the conversations of their teams or assigned to them.
alter table assignment_settings add column team_visibility boolean not null default false;

-- Every path that opens a conversation (the inbound SQL functions, the API, the widget) gets the
-- channel's default team without knowing of it.
create function conversation_default_team() returns trigger language plpgsql as $$
begin
  if new.team_id is null and new.channel_id is not null then
    select ch.default_team_id into new.team_id from channels ch where ch.id = new.channel_id and ch.business_id = new.business_id;
  end if;
  return new;
end;
$$;
create trigger conversations_default_team before insert on conversations
  for each row execute function conversation_default_team();
