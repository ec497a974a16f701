-- The delivery drain of a conversation, as the inbound drain of a channel (migration 0119): a
-- drain that finds another running comes back a second later, and it no longer stays there. A
-- reply stored once the running drain had taken its last look found that job waiting (its time a
-- second away) and armed nothing, so it waited up to a second before it went out, with the
-- worker idle. Now the last look, the release of the DRAIN lock (20204) and the bringing forward
-- of such a job are one step under the STORE lock (20203, shared by every transaction storing a
-- reply: delivery_arm_drain), and a drain that finds DRAIN taken re-arms under the STORE lock too,
-- so it cannot fall between a last look and its bringing forward.

create or replace function delivery_drain_enter(p_job_id bigint, p_conversation_id uuid) returns boolean
language plpgsql as $$
begin
  -- The key is given up first: a reply stored from here on arms the next drain.
  perform graphile_job_release_key(p_job_id, 'deliver:' || p_conversation_id::text);
  if pg_try_advisory_lock(20204, hashtext(p_conversation_id::text)) then
    return true;
  end if;
  -- Held: with STORE exclusive (no drain leaves meanwhile), try once more, else come back.
  perform pg_advisory_xact_lock(20203, hashtext(p_conversation_id::text));
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

-- The last look, on the drain's connection outside a transaction: the STORE lock taken first
-- waits for every transaction storing a reply to the conversation, and the look (a later
-- statement of this volatile function, so a later snapshot) sees what they stored. Nothing
-- queued: DRAIN is released (true), and a drain waiting to come back is brought forward to now
-- (a reply stored from here on finds it waiting and arms nothing). Else the drain goes on (false).
create or replace function delivery_drain_leave(p_conversation_id uuid) returns boolean
language plpgsql as $$
begin
  perform pg_advisory_xact_lock(20203, hashtext(p_conversation_id::text));
  if exists (select 1 from messages m where m.conversation_id = p_conversation_id and m.delivery_status = 'queued') then
    return false;
  end if;
  perform pg_advisory_unlock(20204, hashtext(p_conversation_id::text));
  if exists (
    select 1 from graphile_worker._private_jobs j
    where j.key = 'deliver:' || p_conversation_id::text and j.locked_at is null and j.run_at > now()
  ) then
    perform graphile_worker.add_job(
      identifier => 'deliver_message',
      payload => json_build_object('conversation_id', p_conversation_id::text),
      job_key => 'deliver:' || p_conversation_id::text
    );
  end if;
  return true;
end;
$$;

-- Replaced by delivery_drain_enter.
drop function delivery_drain_started(bigint, uuid);
