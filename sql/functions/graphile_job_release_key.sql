create or replace function graphile_job_release_key(p_job_id bigint, p_key text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  update graphile_worker._private_jobs set key = null where id = p_job_id and key = p_key;
end;
$function$;
