create or replace function reserve_monthly_message(p_business_id uuid, OUT plan_name text, OUT plan_max integer, OUT reserved boolean)
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
$function$;
