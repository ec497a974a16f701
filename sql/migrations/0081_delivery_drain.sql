-- Replies go out in the order they were stored, one conversation at a time (issue 16): a
-- conversation's queued replies are delivered by one drain job (deliver_message
-- {conversation_id}, key deliver:<conversation>), oldest first, instead of one job per reply
-- racing the others. See core/commands/delivery-drain.ts.

-- A reply's delivery attempts, kept on the reply (they were the per-reply job's): how many
-- failed transiently, and when the drain tries it again (a backoff, or the platform's Retry-After).
alter table messages
  add column delivery_attempts smallint not null default 0,
  add column next_delivery_at timestamptz;

-- The drain's "oldest queued reply of this conversation", and the partial index stays small:
-- a reply leaves it as soon as it is sent or failed.
create index messages_queued_idx on messages (conversation_id, created_at, id) where delivery_status = 'queued';

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
create function delivery_arm_drain(p_conversation_id uuid) returns void
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock_shared(20203, hashtext(p_conversation_id::text));
  if exists (
    select 1 from graphile_worker._private_jobs j
    where j.key = 'deliver:' || p_conversation_id::text and j.locked_at is null
  ) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'deliver_message',
    payload => json_build_object('conversation_id', p_conversation_id::text),
    job_key => 'deliver:' || p_conversation_id::text
  );
end;
$$;

-- A drain that starts gives up its key, so that a reply stored while it runs makes the next
-- drain (step 3 above) rather than graphile-worker clearing the key of a running job itself,
-- which also uses up its attempts (add_jobs: a replaced running job would be left "failed"
-- if its worker died).
create function delivery_drain_started(p_job_id bigint, p_conversation_id uuid) returns void
language plpgsql volatile as $$
begin
  -- plpgsql, not sql: its body is checked when it first runs, after graphile-worker's schema exists.
  update graphile_worker._private_jobs set key = null
  where id = p_job_id and key = 'deliver:' || p_conversation_id::text;
end;
$$;

-- Replies queued before this migration had a job each (key message:<id>); the task still
-- takes {message_id} (it re-arms that reply's conversation), so they are delivered as before.
