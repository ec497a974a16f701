-- Webhooks out from inside a one-statement command (issue #16: the agent reply).
-- The caller's events, as refs ({id, type, at, message_id | conversation_id | customer_id}, built
-- by webhookEventsOf in core/commands/webhooks-out.ts), become a dispatch_webhooks job when the
-- business has an active endpoint subscribed to one of their types: the same check and job as
-- enqueueWebhookEvents, but in the statement that made the events, so it costs no round trip
-- and no crash can fall between the write and the job. test/graphile-internals.test.ts checks
-- that the job it writes is the catalogue's dispatch_webhooks.
create function webhook_events_enqueue(p_business_id uuid, p_events jsonb) returns void
language plpgsql volatile as $$
begin
  if p_events is null or jsonb_array_length(p_events) = 0 then
    return;
  end if;
  if not exists (
    select 1 from webhook_endpoints w
    where w.business_id = p_business_id and w.active
      and w.events && array(select e->>'type' from jsonb_array_elements(p_events) e)
  ) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'dispatch_webhooks',
    payload => json_build_object('business_id', p_business_id::text, 'events', p_events)
  );
end;
$$;
