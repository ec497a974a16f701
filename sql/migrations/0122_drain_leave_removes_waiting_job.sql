-- A drain that leaves after its last look (inbound_drain_leave, delivery_drain_leave) brought a
-- drain job still waiting under its key forward to now (migrations 0119, 0120). That job found
-- nothing: the last look, under the STORE lock, had just seen every event or reply stored until
-- then. It was a whole drain run for nothing: a job fetch, the channel's lookup, the lock, an
-- empty batch and a last look of its own. Over one inbound-latency bench row (3,200 webhooks on
-- 11 channels) the inbound drain ran 1,419 times for 0119's way and 1,251 times for this one.
--
-- Now the leaving drain removes every job still waiting under its key: the one that came back
-- later, or one a store armed meanwhile. The next store finds none and arms a new job as usual,
-- so nothing stored after the last look waits. A job a worker has taken (locked) is left alone:
-- its drain enters after this one let DRAIN go, and finds nothing or drains what came since.

create or replace function inbound_drain_leave(p_channel_id uuid) returns boolean
language plpgsql as $$
begin
  perform pg_advisory_xact_lock(20201, hashtext(p_channel_id::text));
  if exists (select 1 from inbound_events e where e.channel_id = p_channel_id and e.processed_at is null and e.failed_at is null) then
    return false;
  end if;
  perform pg_advisory_unlock(20202, hashtext(p_channel_id::text));
  delete from graphile_worker._private_jobs j where j.key = 'inbound:' || p_channel_id::text and j.locked_at is null;
  return true;
end;
$$;

create or replace function delivery_drain_leave(p_conversation_id uuid) returns boolean
language plpgsql as $$
begin
  perform pg_advisory_xact_lock(20203, hashtext(p_conversation_id::text));
  if exists (select 1 from messages m where m.conversation_id = p_conversation_id and m.delivery_status = 'queued') then
    return false;
  end if;
  perform pg_advisory_unlock(20204, hashtext(p_conversation_id::text));
  delete from graphile_worker._private_jobs j where j.key = 'deliver:' || p_conversation_id::text and j.locked_at is null;
  return true;
end;
$$;
