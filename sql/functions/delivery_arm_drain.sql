create or replace function delivery_arm_drain(p_conversation_id uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  perform pg_advisory_xact_lock_shared(20203, hashtext(p_conversation_id::text));
  if graphile_job_waiting('deliver:' || p_conversation_id::text, false) then
    return;
  end if;
  perform graphile_worker.add_job(
    identifier => 'deliver_message',
    payload => json_build_object('conversation_id', p_conversation_id::text),
    job_key => 'deliver:' || p_conversation_id::text
  );
end;
$function$;
