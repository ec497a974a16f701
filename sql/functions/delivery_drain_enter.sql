create or replace function delivery_drain_enter(p_job_id bigint, p_conversation_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
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
$function$;
