create or replace function inbound_drain_leave(p_channel_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  perform pg_advisory_xact_lock(20201, hashtext(p_channel_id::text));
  if exists (select 1 from inbound_events e where e.channel_id = p_channel_id and e.processed_at is null and e.failed_at is null) then
    return false;
  end if;
  perform pg_advisory_unlock(20202, hashtext(p_channel_id::text));
  delete from graphile_worker._private_jobs j where j.key = 'inbound:' || p_channel_id::text and j.locked_at is null;
  return true;
end;
$function$;
