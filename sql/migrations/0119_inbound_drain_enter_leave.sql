-- One drain of a channel's inbound events runs at a time, and the others no longer queue for it.
-- Until now every batch took the channel's DRAIN lock (20202) for its transaction, and a store
-- beside a running drain armed a new job, which a worker took and which then waited on that lock:
-- with a busy channel several of the worker's slots (and pool connections) sat blocked behind
-- one drain (837 waits over 20 ms in one bench run at 250 webhooks/s).
--
-- Now a drain holds DRAIN as a session lock on its own connection for its whole run
-- (inbound_drain_enter), and a drain that finds it taken does not wait: it comes back in a
-- second (a net for a drain whose worker died: its lock went with its connection). Nothing is
-- left to that second: the running drain's last look and its release of DRAIN are one step under
-- the STORE lock (inbound_drain_leave), so every event stored while it held DRAIN is seen by that
-- look, and as it leaves it brings a drain that came back later forward to now. A drain's enter
-- that fails re-arms under the STORE lock too, so it cannot fall between a leave's look and its
-- bringing forward.

create or replace function inbound_drain_enter(p_channel_id uuid) returns boolean
language plpgsql as $$
begin
  if pg_try_advisory_lock(20202, hashtext(p_channel_id::text)) then
    return true;
  end if;
  -- Held: with STORE exclusive (no drain leaves meanwhile), try once more, else come back.
  perform pg_advisory_xact_lock(20201, hashtext(p_channel_id::text));
  if pg_try_advisory_lock(20202, hashtext(p_channel_id::text)) then
    return true;
  end if;
  perform graphile_worker.add_job(
    identifier => 'process_inbound',
    payload => json_build_object('channel_id', p_channel_id::text),
    job_key => 'inbound:' || p_channel_id::text,
    run_at => now() + interval '1 second'
  );
  return false;
end;
$$;

-- The last look. Called on the drain's connection outside a transaction: the STORE lock taken
-- first waits for every transaction storing an event of the channel, and the look (a later
-- statement of this volatile function, so a later snapshot) sees what they stored. Nothing
-- pending: DRAIN is released (true). Else the drain goes on holding it (false).
create or replace function inbound_drain_leave(p_channel_id uuid) returns boolean
language plpgsql as $$
begin
  perform pg_advisory_xact_lock(20201, hashtext(p_channel_id::text));
  if exists (select 1 from inbound_events e where e.channel_id = p_channel_id and e.processed_at is null and e.failed_at is null) then
    return false;
  end if;
  perform pg_advisory_unlock(20202, hashtext(p_channel_id::text));
  -- A drain that found this one running waits to come back later. Brought forward to now: an
  -- event stored from here on finds it waiting and arms nothing, so it must not wait for that time.
  if exists (
    select 1 from graphile_worker._private_jobs j
    where j.key = 'inbound:' || p_channel_id::text and j.locked_at is null and j.run_at > now()
  ) then
    perform graphile_worker.add_job(
      identifier => 'process_inbound',
      payload => json_build_object('channel_id', p_channel_id::text),
      job_key => 'inbound:' || p_channel_id::text
    );
  end if;
  return true;
end;
$$;
