-- Arming a channel's inbound drain without writing the drain's job row on every webhook: at
-- hundreds of webhooks a second on one channel, add_job's update of that one row (job key
-- inbound:<channel>) serialized them, each holding it through its commit.
-- Called by core/commands/inbound.ts storeInboundEvents in the statement that stores the events.
--  1. Take the channel's STORE lock, shared (inboundLocks.store = 20201 in inbound.ts), held
--     until commit: a drain's last look takes it exclusively, so it waits for this event.
--  2. A drain job that has not started yet (unlocked, never attempted) will take this event
--     with it: nothing to do. This query runs in a volatile function, so under READ COMMITTED
--     it takes a fresh snapshot, after the lock: a drain that started before it is seen as
--     started (its job locked), and then a new job is added beside it.
--  3. Otherwise add_job (replace): a new job, or one beside the running drain.
create function inbound_arm_drain(p_channel_id uuid) returns void
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock_shared(20201, hashtext(p_channel_id::text));
  if exists (
    select 1 from graphile_worker.jobs j
    where j.key = 'inbound:' || p_channel_id::text and j.locked_at is null and j.attempts = 0
  ) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'process_inbound',
    payload => json_build_object('channel_id', p_channel_id::text),
    job_key => 'inbound:' || p_channel_id::text
  );
end;
$$;
