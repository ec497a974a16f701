create or replace function inbound_drain_enter(p_job_id bigint, p_channel_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
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
$function$;
