create or replace function delivery_drain_leave(p_conversation_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  perform pg_advisory_xact_lock(20203, hashtext(p_conversation_id::text));
  if exists (select 1 from messages m where m.conversation_id = p_conversation_id and m.delivery_status = 'queued') then
    return false;
  end if;
  perform pg_advisory_unlock(20204, hashtext(p_conversation_id::text));
  delete from graphile_worker._private_jobs j where j.key = 'deliver:' || p_conversation_id::text and j.locked_at is null;
  return true;
end;
$function$;
