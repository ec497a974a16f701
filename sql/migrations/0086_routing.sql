-- Routing (issue #18 items 1 and 3): auto-assignment with capacity, business hours and the
-- out-of-hours auto-responder.
--
-- Both settings are one row per business (primary key business_id, the distribution column);
-- a business without a row has the defaults (off). The inbound path stays one statement: the
-- SQL function inbound_apply_message only arms jobs (auto_assign per business, out_of_hours_reply
-- per conversation); the jobs do the work (core/commands/auto-assign.ts, business-hours.ts).

create table assignment_settings (
  business_id uuid not null primary key references businesses (id) on delete cascade,
  enabled boolean not null default false,
  max_open_per_agent integer not null default 10 check (max_open_per_agent between 1 and 1000),
  -- Round robin: the agent_number of the member who got the last automatic assignment.
  cursor_agent_number integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Per-agent capacity override (null: the business's max_open_per_agent).
alter table team_members add column max_open integer check (max_open between 0 and 1000);

create table business_hours (
  business_id uuid not null primary key references businesses (id) on delete cascade,
  enabled boolean not null default false,
  timezone text not null default 'UTC',
  -- {"mon": [{"open": "09:00", "close": "17:00"}], …}; a day left out is closed all day.
  week jsonb not null default '{}',
  holidays date[] not null default '{}',
  out_of_hours_message text not null default 'Thanks for your message! Our team is away right now; we will answer as soon as we are back.'
    check (char_length(out_of_hours_message) between 1 and 2000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- The out-of-hours state of a conversation as its responder last decided it: at
-- hours_checked_at (under the settings of that time), the team stayed open or closed until
-- hours_checked_until. A customer message after hours_checked_until (or after the settings
-- changed) arms out_of_hours_reply again; so a conversation hears the notice once per closed period.
alter table conversations add column hours_checked_at timestamptz;
alter table conversations add column hours_checked_until timestamptz;

-- The auto-assign job's queue: a business's unassigned open or pending conversations, oldest first.
create index conversations_waiting_idx on conversations (business_id, created_at, id)
  where assignee_id is null and status in ('open', 'pending');
-- Each agent's load: their open and pending conversations.
create index conversations_assignee_load_idx on conversations (business_id, assignee_id)
  where assignee_id is not null and status in ('open', 'pending');

-- Arms the business's auto_assign job (key `assign:<business>`) when auto-assignment is on.
-- Like inbound_arm_drain: a job that has not started yet is left as it is (no update of a
-- shared job row per inbound message); the job's last look takes lock 20205 exclusively, so it
-- waits for every transaction that armed (or found a job waiting) and sees its conversation.
create function auto_assign_arm(p_business_id uuid) returns void language plpgsql as $$
begin
  if not exists (select 1 from assignment_settings s where s.business_id = p_business_id and s.enabled) then
    return;
  end if;
  perform pg_advisory_xact_lock_shared(20205, hashtext(p_business_id::text));
  if graphile_job_waiting('assign:' || p_business_id::text, true) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'auto_assign',
    payload => json_build_object('business_id', p_business_id::text),
    job_key => 'assign:' || p_business_id::text
  );
end;
$$;

-- Arms the conversation's out_of_hours_reply job when business hours are on and its last
-- decision ran out (or the settings changed since).
create function business_hours_arm(p_business_id uuid, p_conversation_id uuid, p_message_id uuid) returns void language plpgsql as $$
declare
  v_updated timestamptz;
begin
  select h.updated_at into v_updated from business_hours h where h.business_id = p_business_id and h.enabled;
  if v_updated is null then
    return;
  end if;
  if exists (
    select 1 from conversations c
    where c.id = p_conversation_id and c.hours_checked_until > clock_timestamp() and c.hours_checked_at >= v_updated
  ) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'out_of_hours_reply',
    payload => json_build_object('message_id', p_message_id::text),
    job_key => 'hours:' || p_conversation_id::text
  );
end;
$$;

-- As of 0078, plus: a new or reopened conversation without an assignee arms auto-assignment,
-- and every customer message may arm the out-of-hours responder.
create or replace function inbound_apply_message(
  p_business_id uuid, p_channel_id uuid, p_channel_type text, p_from_id text, p_from_name text, p_from_email text,
  p_from_phone text, p_external_id text, p_text text, p_attachments jsonb, p_subject text, p_references text[]
) returns table(applied_message_id uuid, applied_conversation_id uuid, opened_conversation boolean) language plpgsql as $$
declare
  v_customer uuid;
  v_conversation uuid;
  v_status text;
  v_assignee uuid;
  v_opened boolean := false;
  v_message uuid;
begin
  perform pg_advisory_xact_lock(hashtext(p_channel_id::text || ':' || p_from_id));
  if exists (select 1 from messages m where m.channel_id = p_channel_id and m.external_id = p_external_id) then
    return;
  end if;

  insert into customers as cu (business_id, channel_id, platform_user_id, name, email, phone)
  values (p_business_id, p_channel_id, p_from_id, p_from_name, p_from_email, p_from_phone)
  on conflict (channel_id, platform_user_id, business_id) where platform_user_id is not null do update set
    name = case when excluded.name <> '' then excluded.name else cu.name end,
    email = coalesce(excluded.email, cu.email),
    phone = coalesce(excluded.phone, cu.phone),
    updated_at = now()
  returning cu.id into v_customer;

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
      last_message_at = clock_timestamp(), updated_at = clock_timestamp()
    where c.id = v_conversation;
  else
    insert into conversations as c (business_id, customer_id, channel_id, channel_type, status, subject, last_message_at, created_at, updated_at)
    values (p_business_id, v_customer, p_channel_id, p_channel_type, 'open', p_subject, clock_timestamp(), clock_timestamp(), clock_timestamp())
    returning c.id into v_conversation;
    v_opened := true;
    v_assignee := null;
  end if;

  insert into messages as m (business_id, conversation_id, sender_type, content, attachments, channel_id, external_id, created_at, updated_at)
  values (p_business_id, v_conversation, 'customer', p_text, p_attachments, p_channel_id, p_external_id, clock_timestamp(), clock_timestamp())
  on conflict (channel_id, external_id, business_id) where external_id is not null do nothing
  returning m.id into v_message;
  if v_message is null then
    return;
  end if;
  if v_assignee is null and (v_opened or v_status = 'resolved') then
    perform auto_assign_arm(p_business_id);
  end if;
  perform business_hours_arm(p_business_id, v_conversation, v_message);
  return query select v_message, v_conversation, v_opened;
end;
$$;
