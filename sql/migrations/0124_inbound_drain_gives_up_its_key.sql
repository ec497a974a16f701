-- A webhook stored while a channel's inbound drain ran armed the next drain with add_job, which
-- replaced the running job by its key: graphile-worker then marks the running job as on its last
-- attempt (attempts = max_attempts), so had that drain failed it would not have been retried, and
-- the failure showed only in the log (the new job covered its events, so nothing was lost).
--
-- The delivery drain has given its key up on entering since migration 0120; now the inbound
-- drain does too, in the same lock order as delivery_drain_enter (migration 0123): the key after
-- DRAIN is taken, or after STORE exclusive when DRAIN is held. The function takes the drain's job
-- id (null: a drain run outside a job, which has no key to give up).

drop function inbound_drain_enter(uuid);

create function inbound_drain_enter(p_job_id bigint, p_channel_id uuid) returns boolean
language plpgsql as $$
begin
  if pg_try_advisory_lock(20202, hashtext(p_channel_id::text)) then
    -- The key is given up: an event stored from here on arms the next drain.
    perform graphile_job_release_key(p_job_id, 'inbound:' || p_channel_id::text);
    return true;
  end if;
  -- Held: with STORE exclusive (no drain leaves meanwhile), try once more, else come back.
  perform pg_advisory_xact_lock(20201, hashtext(p_channel_id::text));
  perform graphile_job_release_key(p_job_id, 'inbound:' || p_channel_id::text);
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
