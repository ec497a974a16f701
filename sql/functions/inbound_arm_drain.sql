create or replace function inbound_arm_drain(p_channel_id uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
$function$;
