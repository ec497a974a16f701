-- The monthly message count of a business in up to 8 rows (slots) instead of one: every agent
-- and AI reply of a business counted on one row, each holding its lock through the commit's
-- WAL flush, so a business's replies went one at a time. The limit stays exact by splitting it:
--   quota      how far this slot may count without looking at the others (fast path);
--   quota_for  the monthly limit the quotas were split from (a plan change voids them).
-- The sum of the quotas never exceeds the limit, so fast paths on different slots can never
-- together pass it; the exact path locks every slot and counts them all.
alter table message_counters add column slot smallint not null default 0;
alter table message_counters add column quota integer not null default 0;
alter table message_counters add column quota_for integer not null default 0;
alter table message_counters drop constraint message_counters_pkey;
alter table message_counters add primary key (business_id, month, slot);

-- Counts one agent or AI message against this UTC month's limit; reserved = false at the limit.
-- Call it last in the transaction (core/domain/plans.ts): the slot's lock is held until commit.
create function reserve_monthly_message(p_business_id uuid, out plan_name text, out plan_max integer, out reserved boolean)
language plpgsql volatile as $$
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
$$;
