create or replace function inbound_apply_message(p_business_id uuid, p_channel_id uuid, p_channel_type text, p_from_id text, p_from_name text, p_from_email text, p_from_phone text, p_external_id text, p_text text, p_attachments jsonb, p_subject text, p_references text[])
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
$function$;
