-- Response and resolution times in business hours, stored when they are decided (issue #18
-- item 6; docs/decisions.md#reports). Reading each duration through the business clock per report
-- (migration 0109) cost some 1.3 µs per conversation per report; now the four time reports read
-- two stored numbers, and a duration uses the schedule in force when it was decided.
--
-- first_response_business_seconds: the open seconds between created_at and first_response_at;
-- resolution_business_seconds: between created_at and resolved_at. Written by the trigger below
-- in the statement that sets (or changes) first_response_at / resolved_at, only when the business's
-- hours are on and have a shift; null otherwise, and then a business-hours report counts the
-- calendar time (no hours were in force when it was decided). Cleared with its timestamp (reopen).
alter table conversations
  add column first_response_business_seconds float8,
  add column resolution_business_seconds float8;

-- The instant of local wall time `wall` in `tz`, as core/domain/business-hours.ts zonedToInstant
-- works it out: the offsets in force a day before and a day after are tried, the earlier valid
-- instant wins (a repeated hour: the first), and a wall time in a gap takes the offset before the
-- change (just after the gap). PostgreSQL's own `at time zone` takes the later instant of a
-- repeated hour, hence this function.
create function business_local_instant(wall timestamp, tz text) returns timestamptz
language sql immutable parallel safe as $$
  select coalesce(
    (select min(c) from (values (x.b), (x.a)) v(c) where c at time zone tz = wall),
    x.b)
  from (select
    (wall - ((((wall - interval '1 day') at time zone 'UTC') at time zone tz) - (wall - interval '1 day'))) at time zone 'UTC' as b,
    (wall - ((((wall + interval '1 day') at time zone 'UTC') at time zone tz) - (wall + interval '1 day'))) at time zone 'UTC' as a) x
$$;

-- The open seconds of the hours (`tz`, `week` as /settings/business-hours stores it, `holidays`)
-- between `a` and `b` (negative when b is before a), the open periods built as
-- core/domain/business-hours.ts openPeriods does: each local date's shifts (a holiday closed all
-- day, `24:00` the next midnight), joined where they touch or overlap. Null when the week has no
-- shift (hours without open time measure nothing: the reports then use calendar time).
create function business_open_seconds(tz text, week jsonb, holidays date[], a timestamptz, b timestamptz) returns float8
language sql immutable parallel safe as $$
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
$$;

-- Keeps the two columns: computed when first_response_at / resolved_at is set or changes (the
-- triggers' WHEN clauses keep every other update of a conversation free of it), with the hours of
-- the business at that moment (one primary-key read, only then).
create function conversations_business_durations() returns trigger
language plpgsql as $$
declare
  v_first boolean := tg_op = 'INSERT' or new.first_response_at is distinct from old.first_response_at or new.created_at is distinct from old.created_at;
  v_resolution boolean := tg_op = 'INSERT' or new.resolved_at is distinct from old.resolved_at or new.created_at is distinct from old.created_at;
  v_hours business_hours;
begin
  if v_first then new.first_response_business_seconds := null; end if;
  if v_resolution then new.resolution_business_seconds := null; end if;
  if (v_first and new.first_response_at is not null) or (v_resolution and new.resolved_at is not null) then
    select * into v_hours from business_hours h where h.business_id = new.business_id and h.enabled;
    if found then
      if v_first then
        new.first_response_business_seconds := business_open_seconds(v_hours.timezone, v_hours.week, v_hours.holidays, new.created_at, new.first_response_at);
      end if;
      if v_resolution then
        new.resolution_business_seconds := business_open_seconds(v_hours.timezone, v_hours.week, v_hours.holidays, new.created_at, new.resolved_at);
      end if;
    end if;
  end if;
  return new;
end
$$;

create trigger conversations_business_durations_insert before insert on conversations
  for each row when (new.first_response_at is not null or new.resolved_at is not null or new.first_response_business_seconds is not null or new.resolution_business_seconds is not null)
  execute function conversations_business_durations();
create trigger conversations_business_durations_update before update of first_response_at, resolved_at, created_at on conversations
  for each row when (old.first_response_at is distinct from new.first_response_at or old.resolved_at is distinct from new.resolved_at or old.created_at is distinct from new.created_at)
  execute function conversations_business_durations();

-- The conversations decided before this migration, with today's hours (the only ones known).
update conversations c set
  first_response_business_seconds = business_open_seconds(h.timezone, h.week, h.holidays, c.created_at, c.first_response_at),
  resolution_business_seconds = business_open_seconds(h.timezone, h.week, h.holidays, c.created_at, c.resolved_at)
from business_hours h
where h.business_id = c.business_id and h.enabled and (c.first_response_at is not null or c.resolved_at is not null);

-- The report cohorts still read only these indexes (migration 0098), now with the stored seconds.
drop index conversations_business_created_idx;
create index conversations_business_created_idx on conversations (business_id, created_at)
  include (channel_type, resolved_by, resolved_at, first_response_at, assignee_id, id, first_response_business_seconds);
drop index conversations_business_resolved_idx;
create index conversations_business_resolved_idx on conversations (business_id, resolved_at)
  include (created_at, resolved_by, channel_type, id, resolution_business_seconds)
  where resolved_at is not null;
