-- Unique keys that hold the distribution column. Distributing tables by business_id (Citus
-- row-based sharding, docs/scaling.md) needs every unique index of a distributed table to
-- contain business_id. These six keys could take it without changing what they mean: a
-- channel, an article and an upload belong to one business, and the identity-generated
-- customer number is unique on its own. business_id goes last, so every lookup that used a
-- prefix of the old key (channel + external id for receipts and threading, storage key for
-- downloads) still uses the index. The inbound function names its conflict targets, so it is
-- restated with the new ones; the rest is 0078 as released.

alter table kb_chunks drop constraint kb_chunks_article_id_ordinal_key,
  add constraint kb_chunks_article_ordinal_key unique (article_id, ordinal, business_id);

alter table inbound_events drop constraint inbound_events_channel_id_dedupe_key_key,
  add constraint inbound_events_channel_dedupe_key unique (channel_id, dedupe_key, business_id);

alter table customers drop constraint customers_number_key,
  add constraint customers_number_key unique (number, business_id);

alter table uploads drop constraint uploads_storage_key_key,
  add constraint uploads_storage_key_key unique (storage_key, business_id);

drop index customers_platform_idx;
create unique index customers_platform_idx on customers (channel_id, platform_user_id, business_id)
  where platform_user_id is not null;

drop index messages_channel_external_idx;
create unique index messages_channel_external_idx on messages (channel_id, external_id, business_id)
  where external_id is not null;

create or replace function inbound_apply_message(
  p_business_id uuid, p_channel_id uuid, p_channel_type text,
  p_from_id text, p_from_name text, p_from_email text, p_from_phone text,
  p_external_id text, p_text text, p_attachments jsonb, p_subject text, p_references text[]
) returns table (applied_message_id uuid, applied_conversation_id uuid, opened_conversation boolean)
language plpgsql as $$
declare
  v_customer uuid;
  v_conversation uuid;
  v_status text;
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
    select c.id, c.status into v_conversation, v_status
    from messages m join conversations c on c.id = m.conversation_id
    where m.channel_id = p_channel_id and m.external_id = any(p_references)
      and c.customer_id = v_customer
    order by array_position(p_references, m.external_id), m.created_at desc
    limit 1;
  else
    select c.id, c.status into v_conversation, v_status
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
  end if;

  insert into messages as m (business_id, conversation_id, sender_type, content, attachments, channel_id, external_id, created_at, updated_at)
  values (p_business_id, v_conversation, 'customer', p_text, p_attachments, p_channel_id, p_external_id, clock_timestamp(), clock_timestamp())
  on conflict (channel_id, external_id, business_id) where external_id is not null do nothing
  returning m.id into v_message;
  if v_message is null then
    return;
  end if;
  return query select v_message, v_conversation, v_opened;
end;
$$;
