create or replace function business_clock(t timestamp with time zone, marks double precision[], base double precision[], open_before double precision[])
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select least(
    base[width_bucket(date_part('epoch', t - '1970-01-01 00:00:00+00'::timestamptz), marks)] + date_part('epoch', t - '1970-01-01 00:00:00+00'::timestamptz),
    open_before[width_bucket(date_part('epoch', t - '1970-01-01 00:00:00+00'::timestamptz), marks) + 1])
$function$;
