-- SLA targets and CSAT (issue #18 items 4 and 5). docs/decisions.md#sla-targets-and-csat.
--
-- SLA policies belong to one business (primary key (business_id, id)); a policy applies to the
-- conversations of its channels or carrying one of its labels (a policy with neither applies to
-- every conversation). Which policy a conversation follows, and its due times, are worked out by
-- the sla_refresh job (JavaScript: business hours are wall-clock arithmetic in an IANA zone,
-- core/domain/sla.ts) and stored on the conversation, so the inbox sorts and filters by them in
-- SQL. Triggers arm that job whenever what the due times depend on changes, whichever code path
-- changed it: a customer or agent message, a status change, the conversation's labels.

create table sla_policies (
  business_id uuid not null references businesses (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 100),
  first_response_minutes integer check (first_response_minutes between 1 and 525600),
  next_response_minutes integer check (next_response_minutes between 1 and 525600),
  resolution_minutes integer check (resolution_minutes between 1 and 525600),
  business_hours_only boolean not null default false,
  channel_ids uuid[] not null default '{}',
  label_ids uuid[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (business_id, id)
);
-- Unique names per business whatever their case; also the list's keyset order.
create unique index sla_policies_business_name_key on sla_policies (business_id, lower(name));

alter table conversations
  add column sla_policy_id uuid,
  add column sla_first_response_due_at timestamptz,
  add column sla_next_response_due_at timestamptz,
  add column sla_resolution_due_at timestamptz,
  -- The soonest due time of a target not met yet (null: nothing due): the inbox's sort and filter.
  add column sla_due_at timestamptz,
  -- The soonest due time of an unmet target whose breach is not recorded yet: the crontab's queue.
  add column sla_alert_at timestamptz;
-- A policy deleted leaves its conversations' policy id null (the delete re-arms their refresh).
alter table conversations add constraint conversations_sla_policy_fkey
  foreign key (business_id, sla_policy_id) references sla_policies (business_id, id) on delete set null (sla_policy_id);
create index conversations_sla_due_idx on conversations (business_id, sla_due_at, id) where sla_due_at is not null;
create index conversations_sla_alert_idx on conversations (sla_alert_at) where sla_alert_at is not null;

-- Each breach once: a target of a conversation whose due time passed unmet.
create table sla_breaches (
  business_id uuid not null references businesses (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  conversation_id uuid not null references conversations (id) on delete cascade,
  sla_policy_id uuid,
  target text not null check (target in ('first_response', 'next_response', 'resolution')),
  due_at timestamptz not null,
  breached_at timestamptz not null default now(),
  primary key (business_id, id)
);
create unique index sla_breaches_once_key on sla_breaches (business_id, conversation_id, target, due_at);

-- Arms the conversation's sla_refresh job when its business has an SLA policy.
create function sla_arm(p_business_id uuid, p_conversation_id uuid) returns void language plpgsql as $$
begin
  if not exists (select 1 from sla_policies p where p.business_id = p_business_id) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'sla_refresh',
    payload => json_build_object('conversation_id', p_conversation_id::text),
    job_key => 'sla:' || p_conversation_id::text
  );
end;
$$;

create function sla_arm_message() returns trigger language plpgsql as $$
begin
  perform sla_arm(new.business_id, new.conversation_id);
  return null;
end;
$$;
create trigger messages_sla_arm after insert on messages
  for each row when (not new.private and new.sender_type in ('customer', 'agent'))
  execute function sla_arm_message();

create function sla_arm_labels() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform sla_arm(old.business_id, old.conversation_id);
  else
    perform sla_arm(new.business_id, new.conversation_id);
  end if;
  return null;
end;
$$;
create trigger conversation_labels_sla_arm after insert or delete on conversation_labels
  for each row execute function sla_arm_labels();

-- CSAT: the business's settings, and one survey per conversation (asked once, rated once).
create table csat_settings (
  business_id uuid not null references businesses (id) on delete cascade,
  enabled boolean not null default false,
  question text not null check (char_length(question) between 1 and 500),
  updated_at timestamptz not null default now(),
  primary key (business_id)
);

-- `token` starts with the business id (base64url of its 16 bytes, then 18 random bytes), so the
-- public page finds the survey by (business_id, token) and the unique key holds business_id.
create table csat_surveys (
  business_id uuid not null references businesses (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  conversation_id uuid not null references conversations (id) on delete cascade,
  message_id uuid,
  token text not null,
  question text not null,
  rating smallint check (rating between 1 and 5),
  comment text check (char_length(comment) <= 2000),
  asked_at timestamptz not null default now(),
  rated_at timestamptz,
  primary key (business_id, id),
  check ((rating is null) = (rated_at is null))
);
create unique index csat_surveys_conversation_key on csat_surveys (business_id, conversation_id);
create unique index csat_surveys_token_key on csat_surveys (business_id, token);
create index csat_surveys_message_idx on csat_surveys (message_id) where message_id is not null;
-- The analytics overview's CSAT figures: ratings of the last 30 days.
create index csat_surveys_rated_idx on csat_surveys (business_id, rated_at) include (rating) where rated_at is not null;

-- A conversation resolved asks for a rating (csat_request) when CSAT is on and it never was asked;
-- and any status change moves its SLA targets (sla_refresh).
create function conversation_status_arm() returns trigger language plpgsql as $$
begin
  perform sla_arm(new.business_id, new.id);
  if new.status = 'resolved'
     and exists (select 1 from csat_settings s where s.business_id = new.business_id and s.enabled)
     and not exists (select 1 from csat_surveys v where v.business_id = new.business_id and v.conversation_id = new.id) then
    perform graphile_worker.add_job(
      identifier => 'csat_request',
      payload => json_build_object('conversation_id', new.id::text),
      job_key => 'csat:' || new.id::text
    );
  end if;
  return null;
end;
$$;
create trigger conversations_status_arm after update of status on conversations
  for each row when (old.status is distinct from new.status)
  execute function conversation_status_arm();

-- A conversation started (by an agent, without a message yet) follows its policy from the start.
create function sla_arm_conversation() returns trigger language plpgsql as $$
begin
  perform sla_arm(new.business_id, new.id);
  return null;
end;
$$;
create trigger conversations_sla_arm after insert on conversations
  for each row execute function sla_arm_conversation();

-- Business hours changed: working-time due times of the business's open conversations move.
create function sla_arm_business_hours() returns trigger language plpgsql as $$
begin
  perform sla_arm(c.business_id, c.id) from conversations c
  where c.business_id = new.business_id and c.status in ('open', 'pending');
  return null;
end;
$$;
create trigger business_hours_sla_arm after insert or update on business_hours
  for each row execute function sla_arm_business_hours();
