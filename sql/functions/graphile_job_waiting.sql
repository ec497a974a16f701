create or replace function graphile_job_waiting(p_key text, p_unattempted boolean)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  return exists (
    select 1 from graphile_worker._private_jobs j
    where j.key = p_key and j.locked_at is null and (not p_unattempted or j.attempts = 0)
  );
end;
$function$;
