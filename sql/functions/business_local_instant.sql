create or replace function business_local_instant(wall timestamp without time zone, tz text)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select coalesce(
    (select min(c) from (values (x.b), (x.a)) v(c) where c at time zone tz = wall),
    x.b)
  from (select
    (wall - ((((wall - interval '1 day') at time zone 'UTC') at time zone tz) - (wall - interval '1 day'))) at time zone 'UTC' as b,
    (wall - ((((wall + interval '1 day') at time zone 'UTC') at time zone tz) - (wall + interval '1 day'))) at time zone 'UTC' as a) x
$function$;
