create or replace function business_open_seconds(tz text, week jsonb, holidays date[], a timestamp with time zone, b timestamp with time zone)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case
    when a is null or b is null then null
    when not exists (select 1 from jsonb_each(week) d where jsonb_typeof(d.value) = 'array' and jsonb_array_length(d.value) > 0) then null
    else sign(date_part('epoch', b - a)) * coalesce((
      select sum(date_part('epoch', upper(r) - lower(r)))
      from unnest((
        select range_agg(tstzrange(p.o, p.e)) * tstzmultirange(tstzrange(least(a, b), greatest(a, b)))
        from (
          select business_local_instant(d::date + (s ->> 'open')::interval, tz) as o,
                 business_local_instant(d::date + (s ->> 'close')::interval, tz) as e
          from generate_series((least(a, b) at time zone tz)::date - 1, (greatest(a, b) at time zone tz)::date + 1, interval '1 day') d
          cross join lateral jsonb_array_elements(coalesce(week -> (array['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'])[extract(dow from d)::int + 1], '[]')) s
          where d::date <> all (holidays)
        ) p
        where p.e > p.o
      )) r
    ), 0)
  end
$function$;
