-- graphile-worker's private job table, touched from SQL only through these two functions (the
-- TypeScript side of the same door is core/adapters/graphile-internals.ts, checked against the
-- installed version by test/graphile-internals.test.ts). The drains' arming functions use them:
-- inbound_arm_drain is restated (otherwise as in 0021, which read the `jobs` view on every
-- webhook; the key lookup on the table itself uses its unique key index), and the delivery
-- drain's functions (issue 16) are created here.
-- plpgsql, not sql: the bodies are checked when they first run, after graphile-worker's schema exists.

-- Whether a job with this key waits to run (not locked; with p_unattempted, also never tried:
-- a retry waiting for its backoff does not count).
create function graphile_job_waiting(p_key text, p_unattempted boolean) returns boolean
language plpgsql volatile as $$
begin
  return exists (
    select 1 from graphile_worker._private_jobs j
    where j.key = p_key and j.locked_at is null and (not p_unattempted or j.attempts = 0)
  );
end;
$$;

-- A running job gives up its key, so that add_job with the key adds the next job instead of
-- replacing this one (graphile-worker clears a locked job's key itself, but also uses up its
-- attempts: the job would be left failed if its worker died).
create function graphile_job_release_key(p_job_id bigint, p_key text) returns void
language plpgsql volatile as $$
begin
  update graphile_worker._private_jobs set key = null where id = p_job_id and key = p_key;
end;
$$;

create or replace function inbound_arm_drain(p_channel_id uuid) returns void
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock_shared(20201, hashtext(p_channel_id::text));
  if graphile_job_waiting('inbound:' || p_channel_id::text, true) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'process_inbound',
    payload => json_build_object('channel_id', p_channel_id::text),
    job_key => 'inbound:' || p_channel_id::text
  );
end;
$$;

-- Arming a conversation's drain when a reply is stored, without a job write (and so without
-- graphile-worker's NOTIFY, which PostgreSQL serializes across all committing transactions)
-- while a drain is already waiting to run. The inbound drain's pattern (0021 inbound_arm_drain):
--  1. Take the conversation's STORE lock, shared (deliveryLocks.store = 20203 in
--     delivery-drain.ts), held until commit: a drain's last look takes it exclusively, so it
--     waits for this reply and sees it.
--  2. A drain job that carries the key has not started: a running drain gives its key up as it
--     starts (delivery_drain_started). That job will take this reply with it: nothing to do.
--     Fresh snapshot after the lock (volatile function, READ COMMITTED), as in 0021.
--  3. Otherwise add_job (replace): the next drain.
-- A drain that starts gives up its key, so that a reply stored while it runs makes the next
-- drain (step 3 above) rather than graphile-worker clearing the key of a running job itself,
-- which also uses up its attempts (add_jobs: a replaced running job would be left "failed"
-- if its worker died).
create function delivery_arm_drain(p_conversation_id uuid) returns void
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock_shared(20203, hashtext(p_conversation_id::text));
  if graphile_job_waiting('deliver:' || p_conversation_id::text, false) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'deliver_message',
    payload => json_build_object('conversation_id', p_conversation_id::text),
    job_key => 'deliver:' || p_conversation_id::text
  );
end;
$$;

-- A drain that starts gives up its key (graphile_job_release_key above).
create function delivery_drain_started(p_job_id bigint, p_conversation_id uuid) returns void
language plpgsql volatile as $$
begin
  perform graphile_job_release_key(p_job_id, 'deliver:' || p_conversation_id::text);
end;
$$;
