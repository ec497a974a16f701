-- A delivery drain that found DRAIN taken deadlocked with a reply stored at that moment
-- (PostgreSQL's deadlock check broke it after deadlock_timeout, 1 s: the drain job failed an
-- attempt and the reply waited the second; the one-business agent-reply bench row showed it as
-- p99 spikes of 0.8-2 s). delivery_drain_enter gave its job's key up first, an UPDATE of the
-- job's row held to commit, and then waited for STORE exclusive. A reply holds STORE shared
-- (delivery_arm_drain) and, finding no drain waiting, arms one with add_job, which replaces the
-- running job by its key: an UPDATE of that same row. Each waited for the other.
--
-- Now the lock order is the same everywhere: the STORE lock, then the job's row. The key is given
-- up after DRAIN is taken (the same transaction, so a reply sees both or neither) or, when DRAIN
-- is held, after STORE exclusive is.

create or replace function delivery_drain_enter(p_job_id bigint, p_conversation_id uuid) returns boolean
language plpgsql as $$
begin
  if pg_try_advisory_lock(20204, hashtext(p_conversation_id::text)) then
    -- The key is given up: a reply stored from here on arms the next drain.
    perform graphile_job_release_key(p_job_id, 'deliver:' || p_conversation_id::text);
    return true;
  end if;
  -- Held: with STORE exclusive (no drain leaves meanwhile), try once more, else come back.
  perform pg_advisory_xact_lock(20203, hashtext(p_conversation_id::text));
  perform graphile_job_release_key(p_job_id, 'deliver:' || p_conversation_id::text);
  if pg_try_advisory_lock(20204, hashtext(p_conversation_id::text)) then
    return true;
  end if;
  perform graphile_worker.add_job(
    identifier => 'deliver_message',
    payload => json_build_object('conversation_id', p_conversation_id::text),
    job_key => 'deliver:' || p_conversation_id::text,
    run_at => now() + interval '1 second'
  );
  return false;
end;
$$;
