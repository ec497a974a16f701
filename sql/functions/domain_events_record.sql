-- Records a command's domain events in its own transaction and arms their subscribers
-- (core/events/domain.ts recordEvents calls it; so do the one-statement reply and delivery paths).
-- p_events: [{business_id, conversation_id?, type, actor_type, actor_id?, actor_name?, data}];
-- p_handled: `business_id:type` of the events some subscriber has something to do with (its type
-- handled, the subscriber interested in the business: core/events/interests.ts, evaluated in the
-- caller's statement); the others are recorded handled at once (the history keeps them).
-- The armed events get one handle_events job per conversation (or per business, for events
-- about no conversation), in a queue chosen by the conversation: a conversation's events are
-- handled in the order recorded, different conversations in parallel (64 queues). The job is
-- the catalogue's handle_events (core/jobs.ts; test/graphile-internals.test.ts checks it).
create or replace function domain_events_record(p_events jsonb, p_handled text[]) returns void
language plpgsql volatile as $$
declare
  v_jobs bigint;
begin
  if p_events is null or jsonb_array_length(p_events) = 0 then
    return;
  end if;
  with recorded as (
    insert into domain_events (business_id, id, conversation_id, type, actor_type, actor_id, actor_name, data, handled_at)
    select e.business_id, uuid_v7(), e.conversation_id, e.type, e.actor_type, e.actor_id, e.actor_name, coalesce(e.data, '{}'),
           case when (e.business_id::text || ':' || e.type) = any(p_handled) then null else now() end
    from rows from (jsonb_to_recordset(p_events) as (business_id uuid, conversation_id uuid, type text, actor_type text, actor_id uuid, actor_name text, data jsonb)) with ordinality as e(business_id, conversation_id, type, actor_type, actor_id, actor_name, data, n)
    order by e.n
    returning id, seq, business_id, conversation_id, handled_at
  )
  select count(graphile_worker.add_job(
    identifier => 'handle_events',
    payload => json_build_object('event_ids', g.ids),
    queue_name => 'events:' || (abs(hashtext(g.key::text)) % 64)::text,
    max_attempts => 10
  )) into v_jobs
  from (
    select coalesce(r.conversation_id, r.business_id) as key, array_agg(r.id order by r.seq) as ids
    from recorded r where r.handled_at is null
    group by 1
    order by min(r.seq)
  ) g;
end;
$$;
