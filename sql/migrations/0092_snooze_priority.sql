-- Snooze, priority and scheduled send (issue 22 item 5). See
-- docs/decisions.md#snooze-priority-bulk-and-scheduled-send.

-- Snooze: set aside until a time (snoozed_until) or until the customer writes (snoozed_until
-- null). snoozed_at is the mark: a conversation is snoozed exactly when it is not null.
-- Priority: one of five words, `none` by default.
alter table conversations
  add column snoozed_at timestamptz,
  add column snoozed_until timestamptz,
  add column priority text not null default 'none',
  add constraint conversations_priority_check check (priority in ('none', 'low', 'medium', 'high', 'urgent')),
  add constraint conversations_snooze_check check (snoozed_until is null or snoozed_at is not null);

-- The Snoozed view (GET /conversations?snoozed=true), keyset-paged like the inbox.
create index conversations_snoozed_idx on conversations (business_id, updated_at desc, id desc) where snoozed_at is not null;
-- The minute job waking the due ones, across businesses.
create index conversations_snooze_due_idx on conversations (snoozed_until) where snoozed_until is not null;
-- ?priority= , keyset-paged.
create index conversations_business_priority_idx on conversations (business_id, priority, updated_at desc, id desc);

-- Scheduled replies: stored `scheduled` with the time they go out (send_at); released into
-- `queued` (and so the conversation's delivery drain) when due.
alter table messages add column send_at timestamptz;
alter table messages drop constraint messages_delivery_status_check;
alter table messages add constraint messages_delivery_status_check
  check (delivery_status in ('scheduled', 'queued', 'sent', 'delivered', 'read', 'failed'));
alter table messages add constraint messages_send_at_check check (delivery_status is distinct from 'scheduled' or send_at is not null);
create index messages_scheduled_due_idx on messages (send_at) where delivery_status = 'scheduled';

-- A customer message wakes a snoozed conversation, in the same one statement per message as before
-- (restated from migration 0086 with the two snooze columns cleared).
create or replace function inbound_apply_message(p_business_id uuid, p_channel_id uuid, p_channel_type text, p_from_id text, p_from_name text, p_from_email text, p_from_phone text, p_external_id text, p_text text, p_attachments jsonb, p_subject text, p_references text[])
 RETURNS TABLE(applied_message_id uuid, applied_conversation_id uuid, opened_conversation boolean)
 LANGUAGE plpgsql
AS $function$
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
      -- The customer wrote: a snoozed conversation wakes (docs/decisions.md#snooze-priority-bulk-and-scheduled-send).
      snoozed_at = null, snoozed_until = null,
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
$function$
;
