-- CSAT and SLA reports, and response times in business hours (issue #18 item 6;
-- docs/decisions.md#reports).
--
-- sla_results: each SLA target of a conversation once it is settled, met in time (hit) or not
-- (a breach): recorded by refreshSla (core/commands/sla.ts) beside sla_breaches, so that a
-- next-response cycle answered in time, which leaves nothing on the conversation, is counted.
-- One row per (conversation, target, start of its clock): the first settlement stands.
-- `settled_at` is when the outcome was decided: the reply or resolution that met the target, or
-- the due time that passed unmet. The SLA report counts results by that instant.
create table sla_results (
  business_id uuid not null references businesses (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  conversation_id uuid not null references conversations (id) on delete cascade,
  -- The policy it was measured under (no foreign key: a deleted policy keeps its history).
  sla_policy_id uuid,
  target text not null check (target in ('first_response', 'next_response', 'resolution')),
  started_at timestamptz not null,
  due_at timestamptz not null,
  met_at timestamptz,
  hit boolean not null,
  settled_at timestamptz not null,
  primary key (business_id, id),
  check (hit = (met_at is not null and met_at <= due_at)),
  check (settled_at = case when hit then met_at else due_at end)
);
create unique index sla_results_once_key on sla_results (business_id, conversation_id, target, started_at);
-- The SLA report: one range scan of a business's results by when they settled, not visiting the table.
create index sla_results_settled_idx on sla_results (business_id, settled_at) include (target, hit, sla_policy_id);

-- The CSAT report's `asked` count: surveys by when they were sent (ratings use csat_surveys_rated_idx).
create index csat_surveys_asked_idx on csat_surveys (business_id, asked_at);

-- The seconds of a business's open time from its first mark to `t` (a reading of its business
-- clock): open time between a and b is business_clock(b) − business_clock(a). `marks` are its open
-- periods as sorted instants [open₁, close₁, open₂, close₂, …] in epoch seconds, worked out by
-- core/domain/business-hours.ts for the span a report needs; `open_before[i]` the open seconds
-- up to mark i, with one more element repeating the last; `base[i]` = open_before[i] − marks[i].
-- With i = width_bucket (a binary search over float8, its fast path: the marks at or before t),
-- the reading is base[i] + t while open (i odd) and open_before[i] while closed; both cases are
-- least(base[i] + t, open_before[i + 1]), since the next mark's count is the current one when
-- closed and larger than any reading inside an open period. Before the first mark (i = 0,
-- base[0] null) it is open_before[1] = 0. One plain immutable expression, so the planner inlines
-- it: epoch seconds as date_part of an interval (immutable, and measured some 2.5 times faster per
-- row than date_part of a timestamptz, which is only stable and would keep the function from
-- being inlined as immutable).
create function business_clock(t timestamptz, marks float8[], base float8[], open_before float8[]) returns float8
language sql immutable parallel safe as $$
  select least(
    base[width_bucket(date_part('epoch', t - '1970-01-01 00:00:00+00'::timestamptz), marks)] + date_part('epoch', t - '1970-01-01 00:00:00+00'::timestamptz),
    open_before[width_bucket(date_part('epoch', t - '1970-01-01 00:00:00+00'::timestamptz), marks) + 1])
$$;

-- The targets already settled on conversations measured under a policy before this migration
-- (first response and resolution; next-response cycles answered in time left no trace).
insert into sla_results (business_id, conversation_id, sla_policy_id, target, started_at, due_at, met_at, hit, settled_at)
select s.business_id, s.id, s.sla_policy_id, s.target, s.created_at, s.due_at, s.met_at, s.hit,
       case when s.hit then s.met_at else s.due_at end
from (
  select c.business_id, c.id, c.sla_policy_id, c.created_at, t.target, t.due_at, t.met_at,
         (t.met_at is not null and t.met_at <= t.due_at) as hit
  from conversations c
  cross join lateral (
    values ('first_response', c.sla_first_response_due_at,
            coalesce(c.first_response_at, case when c.status in ('resolved', 'closed') then coalesce(c.resolved_at, c.closed_at) end)),
           ('resolution', c.sla_resolution_due_at,
            case when c.status in ('resolved', 'closed') then coalesce(c.resolved_at, c.closed_at) end)
  ) t(target, due_at, met_at)
  where c.sla_policy_id is not null and t.due_at is not null and (t.met_at is not null or t.due_at <= now())
) s
on conflict do nothing;
