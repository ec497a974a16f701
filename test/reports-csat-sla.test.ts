/**
 * The CSAT and SLA reports and response times in business hours (issue #18 item 6), against
 * figures computed by hand, around the night Europe/Berlin moves its clocks forward
 * (2026-03-29, 02:00 → 03:00 local, 01:00 UTC). percentile_cont interpolates:
 * p90 of n sorted samples = s[k] + f·(s[k+1] − s[k]) with k + f = 0.9·(n − 1).
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { businessClock, clockReading } from '../core/domain/working-time.ts';
import { openPeriodsBetween } from '../core/domain/business-hours.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const BERLIN = { from: '2026-03-28', to: '2026-03-30', tz: 'Europe/Berlin' };
const report = (ws: Workspace, kind: string, query: Record<string, string>) => app.request('GET', `/api/v1/reports/${kind}`, { token: ws.token, query });

async function conversation(businessId: string, created = '2026-03-20T10:00:00Z'): Promise<string> {
  const [row] = await app.sql(
    `insert into conversations (business_id, channel_type, status, created_at, updated_at) values ($1, 'webchat', 'resolved', $2, now()) returning id`,
    [businessId, created],
  );
  return row.id;
}

// ---- CSAT

const dist = (one: number, two: number, three: number, four: number, five: number) => ({ 1: one, 2: two, 3: three, 4: four, 5: five });
const csat = (asked: number, responses: number, average: number | null, satisfied: number | null, distribution: ReturnType<typeof dist>) => ({
  asked,
  responses,
  average,
  satisfied_percent: satisfied,
  distribution,
});

async function survey(businessId: string, asked: string, rated: string | null, rating: number | null) {
  const id = await conversation(businessId);
  await app.sql(
    `insert into csat_surveys (business_id, conversation_id, token, question, rating, asked_at, rated_at) values ($1, $2, gen_random_uuid()::text, 'How did we do?', $3, $4, $5)`,
    [businessId, id, rating, asked, rated],
  );
}

test('csat: asked by day sent, ratings by day given, average, share of 4s and 5s and the distribution; CSV', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  // 28th local (CET) is 27th 23:00Z … 28th 22:59Z; the 29th (23 hours) 28th 23:00Z … 29th 21:59Z; the 30th from 29th 22:00Z.
  await survey(ws.businessId, '2026-03-27T23:30:00Z', '2026-03-28T10:00:00Z', 5); // asked 28th, rated 28th
  await survey(ws.businessId, '2026-03-28T12:00:00Z', '2026-03-28T22:59:00Z', 4); // asked 28th, rated 28th 23:59 local
  await survey(ws.businessId, '2026-03-28T23:00:00Z', '2026-03-29T21:59:00Z', 2); // asked 29th 00:00, rated 29th 23:59 CEST
  await survey(ws.businessId, '2026-03-29T22:30:00Z', null, null); // asked 30th, never rated
  await survey(ws.businessId, '2026-03-30T08:00:00Z', '2026-03-30T09:00:00Z', 5); // 30th, 30th
  await survey(ws.businessId, '2026-03-30T21:00:00Z', '2026-03-30T22:00:00Z', 1); // asked 30th, rated 31st 00:00 local: out
  await survey(ws.businessId, '2026-03-26T10:00:00Z', '2026-03-27T23:30:00Z', 3); // asked before, rated 28th 00:30 local
  // Another business's ratings on the same days are never counted.
  const other = await createWorkspace(app);
  await survey(other.businessId, '2026-03-28T10:00:00Z', '2026-03-28T11:00:00Z', 1);

  const res = await report(ws, 'csat', BERLIN);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, {
    ...BERLIN,
    // Ratings 5 4 3 2 5: 19 / 5 = 3.8; 4s and 5s 3 of 5.
    totals: csat(6, 5, 3.8, 60, dist(0, 1, 1, 1, 2)),
    days: [
      // 5 4 3: 4.0, two of three satisfied.
      { date: '2026-03-28', ...csat(2, 3, 4, 66.67, dist(0, 0, 1, 1, 1)) },
      { date: '2026-03-29', ...csat(1, 1, 2, 0, dist(0, 1, 0, 0, 0)) },
      { date: '2026-03-30', ...csat(3, 1, 5, 100, dist(0, 0, 0, 0, 1)) },
    ],
  });
  const empty = await report(ws, 'csat', { from: '2026-03-01', to: '2026-03-01', tz: 'Europe/Berlin' });
  t.deepEqual(empty.body.totals, csat(0, 0, null, null, dist(0, 0, 0, 0, 0)));

  const file = await report(ws, 'csat', { ...BERLIN, format: 'csv' });
  t.is(file.status, 200);
  t.is(file.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.is(file.headers.get('content-disposition'), 'attachment; filename="parley-csat-2026-03-28-to-2026-03-30.csv"');
  t.is(
    file.text,
    'date,asked,responses,average,satisfied_percent,rating_1,rating_2,rating_3,rating_4,rating_5\r\n' +
      '2026-03-28,2,3,4,66.67,0,0,1,1,1\r\n' +
      '2026-03-29,1,1,2,0,0,1,0,0,0\r\n' +
      '2026-03-30,3,1,5,100,0,0,0,0,1\r\n' +
      'total,6,5,3.8,60,0,1,1,1,2\r\n',
  );
  // The other business sees only its own rating.
  t.deepEqual((await report(other, 'csat', BERLIN)).body.totals, csat(1, 1, 1, 0, dist(1, 0, 0, 0, 0)));
});

// ---- SLA

const target = (met: number, breached: number, hit: number | null) => ({ met, breached, hit_rate: hit });
const sla = (fr: ReturnType<typeof target>, nr: ReturnType<typeof target>, res: ReturnType<typeof target>, breaches: number) => ({
  first_response: fr,
  next_response: nr,
  resolution: res,
  breaches,
});
const none = target(0, 0, null);

async function policy(businessId: string, name: string): Promise<string> {
  const [row] = await app.sql(`insert into sla_policies (business_id, name, first_response_minutes) values ($1, $2, 60) returning id`, [businessId, name]);
  return row.id;
}

/** A settled target: a hit met at `at` (due an hour later), or a miss whose due time was `at`. */
async function result(businessId: string, policyId: string, targetName: string, hit: boolean, at: string) {
  const id = await conversation(businessId);
  const due = hit ? new Date(Date.parse(at) + 3_600_000).toISOString() : at;
  await app.sql(
    `insert into sla_results (business_id, conversation_id, sla_policy_id, target, started_at, due_at, met_at, hit, settled_at)
     values ($1, $2, $3, $4, $5::timestamptz - interval '1 day', $6, $7, $8, $5)`,
    [businessId, id, policyId, targetName, at, due, hit ? at : null, hit],
  );
}

test('sla: met and breached per target by the day each settled, hit rates, per policy (a deleted one too); CSV', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const gold = await policy(ws.businessId, 'Gold');
  const basic = await policy(ws.businessId, 'basic');
  const silver = await policy(ws.businessId, 'Silver');
  const gone = '00000000-0000-4000-8000-000000000001';
  await result(ws.businessId, gold, 'first_response', true, '2026-03-28T10:00:00Z'); // 28th
  await result(ws.businessId, gold, 'first_response', false, '2026-03-28T22:59:00Z'); // 28th 23:59 local
  await result(ws.businessId, basic, 'next_response', true, '2026-03-28T23:00:00Z'); // 29th 00:00 local
  await result(ws.businessId, basic, 'resolution', false, '2026-03-29T12:00:00Z'); // 29th
  await result(ws.businessId, gold, 'resolution', true, '2026-03-30T09:00:00Z'); // 30th
  await result(ws.businessId, gone, 'first_response', false, '2026-03-30T10:00:00Z'); // 30th, policy since deleted
  await result(ws.businessId, gold, 'next_response', false, '2026-03-30T22:00:00Z'); // 31st 00:00 local: out
  await result(ws.businessId, gold, 'first_response', true, '2026-03-27T22:59:00Z'); // 27th 23:59 local: out
  const other = await createWorkspace(app);
  await result(other.businessId, await policy(other.businessId, 'Gold'), 'first_response', false, '2026-03-28T12:00:00Z');

  const res = await report(ws, 'sla', BERLIN);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, {
    ...BERLIN,
    // First response 1 met of 3: 33.33 %; next response 1 of 1; resolution 1 of 2.
    totals: sla(target(1, 2, 33.33), target(1, 0, 100), target(1, 1, 50), 3),
    days: [
      { date: '2026-03-28', ...sla(target(1, 1, 50), none, none, 1) },
      { date: '2026-03-29', ...sla(none, target(1, 0, 100), target(0, 1, 0), 1) },
      { date: '2026-03-30', ...sla(target(0, 1, 0), none, target(1, 0, 100), 1) },
    ],
    policies: [
      { policy_id: basic, name: 'basic', ...sla(none, target(1, 0, 100), target(0, 1, 0), 1) },
      { policy_id: gold, name: 'Gold', ...sla(target(1, 1, 50), none, target(1, 0, 100), 1) },
      { policy_id: silver, name: 'Silver', ...sla(none, none, none, 0) },
      { policy_id: gone, name: 'Deleted policy', ...sla(target(0, 1, 0), none, none, 1) },
    ],
  });

  const file = await report(ws, 'sla', { ...BERLIN, format: 'csv' });
  t.is(file.headers.get('content-disposition'), 'attachment; filename="parley-sla-2026-03-28-to-2026-03-30.csv"');
  const lines = file.text.trimEnd().split('\r\n');
  t.deepEqual(lines, [
    'date,policy_id,policy_name,first_response_met,first_response_breached,first_response_hit_rate,next_response_met,next_response_breached,next_response_hit_rate,resolution_met,resolution_breached,resolution_hit_rate,breaches',
    '2026-03-28,,,1,1,50,0,0,,0,0,,1',
    '2026-03-29,,,0,0,,1,0,100,0,1,0,1',
    '2026-03-30,,,0,1,0,0,0,,1,0,100,1',
    'total,,,1,2,33.33,1,0,100,1,1,50,3',
    `total,${basic},basic,0,0,,1,0,100,0,1,0,1`,
    `total,${gold},Gold,1,1,50,0,0,,1,0,100,1`,
    `total,${silver},Silver,0,0,,0,0,,0,0,,0`,
    `total,${gone},Deleted policy,0,1,0,0,0,,0,0,,1`,
  ]);
  // The other business: its one breach and its own policy only.
  const theirs = await report(other, 'sla', BERLIN);
  t.deepEqual(theirs.body.totals, sla(target(0, 1, 0), none, none, 1));
  t.deepEqual(
    theirs.body.policies.map((p: { name: string }) => p.name),
    ['Gold'],
  );
});

// ---- Business hours

type Seed = { created: string; frt?: string; resolved?: string };

async function seedTimes(businessId: string, rows: Seed[]) {
  for (const r of rows) {
    await app.sql(
      `insert into conversations (business_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at)
       values ($1, 'email', $2, $3, now(), $4, $5)`,
      [businessId, r.resolved ? 'resolved' : 'open', r.created, r.frt ?? null, r.resolved ?? null],
    );
  }
}

const nineToFive = [{ open: '09:00', close: '17:00' }];
const officeWeek = { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive };

test('business hours: times count only open time, across a weekend, the DST change and a holiday; calendar when off', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const ann = await addMember(app, ws.businessId, 'admin', { name: 'Ann' });
  const hours = await app.request('PATCH', '/api/v1/settings/business-hours', {
    token: ws.token,
    body: { enabled: true, timezone: 'Europe/Berlin', week: officeWeek, holidays: ['2026-03-31'] },
  });
  t.is(hours.status, 200, hours.text);
  // Mon–Fri 09:00–17:00 Berlin; Friday the 27th is CET (+01:00), Monday the 30th CEST (+02:00); Tuesday the 31st a holiday.
  await seedTimes(ws.businessId, [
    // P: Fri 16:30 → reply Mon 09:15 (30 + 15 min = 2700 s) → resolved Mon 10:00 (30 + 60 min = 5400 s).
    { created: '2026-03-27T15:30:00Z', frt: '2026-03-30T07:15:00Z', resolved: '2026-03-30T08:00:00Z' },
    // Q: Sat 12:00 → reply Sat 13:00 (closed: 0 s) → resolved Mon 09:30 (1800 s).
    { created: '2026-03-28T11:00:00Z', frt: '2026-03-28T12:00:00Z', resolved: '2026-03-30T07:30:00Z' },
    // R: Mon 10:00 → 10:10 (600 s).
    { created: '2026-03-30T08:00:00Z', frt: '2026-03-30T08:10:00Z' },
    // S: Mon 16:50 → Wed 09:05, the holiday between (10 + 5 min = 900 s).
    { created: '2026-03-30T14:50:00Z', frt: '2026-04-01T07:05:00Z' },
    // T: created two weeks before the range, Thu 12th 16:00 CET, resolved Fri 27th 09:30 (1 + 8 + 40 + 32 + 0.5 h = 293400 s).
    { created: '2026-03-12T15:00:00Z', resolved: '2026-03-27T08:30:00Z' },
  ]);
  const range = { from: '2026-03-27', to: '2026-03-30', tz: 'Europe/Berlin' };
  const res = await report(ws, 'overview', range);
  t.is(res.status, 200, res.text);
  t.is(res.body.time_basis, 'business_hours');
  const fig = (opened: number, resolved: number, a: number | null, b: number | null, c: number | null, d: number | null) => ({
    opened,
    resolved,
    first_response_median: a,
    first_response_p90: b,
    resolution_median: c,
    resolution_p90: d,
  });
  // Replies 0 600 900 2700: median 750, p90 900 + 0.7·1800 = 2160. Resolutions 1800 5400 293400: 5400, 5400 + 0.8·288000 = 235800.
  t.deepEqual(res.body.totals, fig(4, 3, 750, 2160, 5400, 235800));
  t.deepEqual(res.body.days, [
    { date: '2026-03-27', ...fig(1, 1, 2700, 2700, 293400, 293400) },
    { date: '2026-03-28', ...fig(1, 0, 0, 0, null, null) },
    { date: '2026-03-29', ...fig(0, 0, null, null, null, null) },
    // R 600, S 900: 750, 600 + 0.9·300 = 870; P 5400, Q 1800: 3600, 1800 + 0.9·3600 = 5040.
    { date: '2026-03-30', ...fig(2, 2, 750, 870, 3600, 5040) },
  ]);
  const agents = await report(ws, 'agents', range);
  t.is(agents.body.time_basis, 'business_hours');
  t.deepEqual(
    agents.body.rows.find((r: { user_id: string | null }) => r.user_id === null),
    { user_id: null, name: 'Unassigned', ...fig(4, 3, 750, 2160, 5400, 235800) },
  );
  t.true(agents.body.rows.some((r: { user_id: string }) => r.user_id === ann.userId));
  const channels = await report(ws, 'channels', range);
  t.deepEqual(channels.body, { ...range, time_basis: 'business_hours', rows: [{ channel_type: 'email', ...fig(4, 3, 750, 2160, 5400, 235800) }] });
  t.is((await report(ws, 'labels', range)).body.time_basis, 'business_hours');
  // The CSV says the unit.
  const file = await report(ws, 'overview', { ...range, format: 'csv' });
  const lines = file.text.trimEnd().split('\r\n');
  t.is(
    lines[0],
    'date,opened,resolved,first_response_median_business_seconds,first_response_p90_business_seconds,resolution_median_business_seconds,resolution_p90_business_seconds',
  );
  t.is(lines.at(-1), 'total,4,3,750,2160,5400,235800');

  // Hours off: calendar time again. P's reply: Fri 15:30Z → Mon 07:15Z = 2 d 15 h 45 min.
  t.is((await app.request('PATCH', '/api/v1/settings/business-hours', { token: ws.token, body: { enabled: false } })).status, 200);
  const calendar = await report(ws, 'overview', range);
  t.is(calendar.body.time_basis, 'calendar');
  t.deepEqual(calendar.body.days[0], { date: '2026-03-27', ...fig(1, 1, 229_500, 229_500, 1_272_600, 1_272_600) });
});

test('business_clock in SQL reads as the clock in JavaScript, at marks, inside and outside open periods', async (t) => {
  const hours = {
    timezone: 'America/New_York',
    week: { ...officeWeek, sat: [{ open: '22:00', close: '24:00' }], sun: [{ open: '00:00', close: '02:30' }] },
    holidays: ['2026-11-03'],
  };
  // Across the autumn change in New York (2026-11-01, 02:00 EDT → 01:00 EST).
  const from = new Date('2026-10-29T00:00:00Z');
  const to = new Date('2026-11-06T00:00:00Z');
  const clock = businessClock(hours, from, to);
  t.true(clock.marks.length >= 12);
  // The Saturday night shift runs into Sunday: one period of 4.5 hours, the night of the change 5.5.
  const instants = [...clock.marks.map((m) => new Date(m * 1000).toISOString()), from.toISOString(), to.toISOString()];
  for (let i = 0; i < 60; i++) instants.push(new Date(from.getTime() + ((i * 7919 * 60_000) % (to.getTime() - from.getTime()))).toISOString());
  const rows = await app.sql(`select t, business_clock(t, $2::float8[], $3::float8[], $4::float8[]) as v from unnest($1::timestamptz[]) t`, [
    instants,
    clock.marks,
    clock.base,
    clock.openBefore,
  ]);
  // Equal to the microsecond (the SQL adds epoch seconds near 1.8e9 in float8).
  for (const row of rows) t.true(Math.abs(row.v - clockReading(clock, row.t)) < 1e-5, `${row.t.toISOString()}: ${row.v} ≠ ${clockReading(clock, row.t)}`);
  // Inlined: the plan holds the expression, not a call per row (a stable body would keep it a call, some 3 times slower).
  const plan = await app.sql(`explain (verbose) select business_clock(t, $2::float8[], $3::float8[], $4::float8[]) from unnest($1::timestamptz[]) t`, [
    instants,
    clock.marks,
    clock.base,
    clock.openBefore,
  ]);
  const text = plan.map((r) => r['QUERY PLAN']).join('\n');
  t.true(text.includes('width_bucket') && !text.includes('business_clock'), text);
  // Five weekdays of 8 hours but the holiday, and the weekend night of 2 + 2.5 hours plus the repeated hour.
  const week = clockReading(clock, new Date('2026-11-06T00:00:00Z')) - clockReading(clock, new Date('2026-10-30T00:00:00Z'));
  t.is(week, (8 + 8 + 8 + 8) * 3600 + (2 + 3.5) * 3600);
});

test('business_open_seconds in SQL (the stored durations) equals the JavaScript open time, across the autumn change and a holiday', async (t) => {
  const hours = {
    timezone: 'America/New_York',
    // Sunday's first shift ends in the repeated hour: 01:30 the first time (EDT), as the JavaScript hours take it.
    week: {
      ...officeWeek,
      sat: [{ open: '22:00', close: '24:00' }],
      sun: [
        { open: '00:00', close: '01:30' },
        { open: '02:00', close: '02:30' },
      ],
    },
    holidays: ['2026-11-03'],
  };
  const from = new Date('2026-10-29T00:00:00Z');
  const to = new Date('2026-11-06T00:00:00Z');
  const clock = businessClock(hours, from, to);
  // Pairs of instants: every mark against a spread of others (both orders: negative when backwards).
  const spread = Array.from({ length: 25 }, (_, i) => new Date(from.getTime() + ((i * 7919 * 60_000) % (to.getTime() - from.getTime()))));
  const points = [...clock.marks.map((m) => new Date(m * 1000)), ...spread];
  const a: string[] = [];
  const b: string[] = [];
  for (let i = 0; i < points.length; i++) {
    a.push(points[i]!.toISOString());
    b.push(points[(i * 7 + 3) % points.length]!.toISOString());
  }
  const rows = await app.sql(
    `select a, b, business_open_seconds($3, $4::jsonb, $5::date[], a, b) as v from unnest($1::timestamptz[], $2::timestamptz[]) x(a, b)`,
    [a, b, hours.timezone, JSON.stringify(hours.week), hours.holidays],
  );
  t.is(rows.length, points.length);
  for (const row of rows) {
    const expected = clockReading(clock, row.b) - clockReading(clock, row.a);
    t.true(Math.abs(row.v - expected) < 1e-6, `${row.a.toISOString()} → ${row.b.toISOString()}: ${row.v} ≠ ${expected}`);
  }
  // The weekend night of the change: Sat 22:00 EDT → Sun 01:30 EDT (3.5 hours; PostgreSQL's own
  // `at time zone` would take 01:30 EST, an hour later) and 02:00 → 02:30 EST.
  const [night] = await app.sql(`select business_open_seconds($1, $2::jsonb, $3::date[], '2026-10-31T00:00:00Z', '2026-11-02T00:00:00Z') as v`, [
    hours.timezone,
    JSON.stringify(hours.week),
    hours.holidays,
  ]);
  t.is(night.v, 4 * 3600);
  // A week without a shift measures nothing: null (the reports then count calendar time).
  const [none] = await app.sql(`select business_open_seconds('UTC', '{"mon": []}'::jsonb, '{}'::date[], now() - interval '1 day', now()) as v`);
  t.is(none.v, null);
});

async function widgetOf(ws: Workspace): Promise<string> {
  const created = await app.request('POST', '/api/v1/widget/create', {
    token: ws.token,
    body: { domain: `w${Math.random().toString(36).slice(2, 8)}.example.com` },
  });
  if (created.status !== 200) throw new Error(created.text);
  return created.body.id;
}

/** A website visitor writes: a new conversation (its id). */
async function visitorWrites(widgetId: string, text: string): Promise<string> {
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widgetId }, headers: { 'x-forwarded-for': '203.0.113.77' } });
  if (session.status !== 200) throw new Error(session.text);
  const sent = await app.request('POST', '/api/v1/visitor/messages', {
    body: { content: text },
    headers: { authorization: `Bearer ${session.body.visitor_token}` },
  });
  if (sent.status !== 200) throw new Error(sent.text);
  return sent.body.conversation_id;
}

test('business hours: a duration is stored once when decided, with the schedule then in force; later schedule changes leave it', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const setHours = async (body: Record<string, unknown>) => {
    const res = await app.request('PATCH', '/api/v1/settings/business-hours', { token: ws.token, body });
    t.is(res.status, 200, res.text);
  };
  const allDay = [{ open: '00:00', close: '24:00' }];
  const always = { sun: allDay, mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay };
  const minuteOnMondays = { mon: [{ open: '09:00', close: '09:01' }] };
  await setHours({ enabled: true, timezone: 'UTC', week: always });

  const id = await visitorWrites(await widgetOf(ws), 'Hello, anyone there?');
  await app.sql(`update conversations set created_at = now() - interval '2 days' where id = $1`, [id]);
  const stored = async () => {
    const [row] = await app.sql(
      `select first_response_business_seconds as f, resolution_business_seconds as r, created_at, resolved_at,
              date_part('epoch', first_response_at - created_at) as f_calendar, date_part('epoch', resolved_at - created_at) as r_calendar
       from conversations where id = $1`,
      [id],
    );
    return row;
  };
  t.is((await stored()).f, null);
  const reply = (content: string) => app.request('POST', `/api/v1/conversations/${id}/messages`, { token: ws.token, body: { content } });
  t.is((await reply('Hi, here we are.')).status, 200);
  // Open all the time when the reply came: every second of the wait counts.
  const first = await stored();
  t.true(first.f > 2 * 86_400 - 60, String(first.f));
  t.is(first.f, first.f_calendar);
  t.is(first.r, null);

  // The schedule changes: one minute on Mondays. A second reply does not touch the first response.
  await setHours({ week: minuteOnMondays });
  t.is((await reply('Anything else?')).status, 200);
  t.is((await stored()).f, first.f);
  // Resolved now: measured with the schedule in force now (as the JavaScript hours work it out).
  t.is((await app.request('PUT', `/api/v1/conversations/${id}/resolve`, { token: ws.token })).status, 200);
  const resolved = await stored();
  const minute = { timezone: 'UTC', week: minuteOnMondays, holidays: [] };
  const open = openPeriodsBetween(minute, resolved.created_at, resolved.resolved_at)
    .map(([s, e]) => Math.min(e, resolved.resolved_at.getTime()) - Math.max(s, resolved.created_at.getTime()))
    .reduce((sum, ms) => sum + ms, 0);
  t.true(Math.abs(resolved.r - open / 1000) < 1e-3, `${resolved.r} ≠ ${open / 1000}`);
  t.true(resolved.r <= 60);

  // Back to open all the time: the report still shows each duration as it was decided.
  await setHours({ week: always });
  const day = (at: Date) => at.toISOString().slice(0, 10);
  const range = { from: day(resolved.created_at), to: day(new Date(Date.now() + 86_400_000)), tz: 'UTC' };
  const figures = async () => (await report(ws, 'overview', range)).body;
  const before = await figures();
  t.is(before.time_basis, 'business_hours');
  t.is(before.totals.first_response_median, Math.round(first.f));
  t.is(before.totals.resolution_median, Math.round(resolved.r));
  t.not(before.totals.resolution_median, Math.round(resolved.r_calendar));

  // Reopened: the resolution is undecided again; resolved again, it is measured with today's schedule.
  t.is((await app.request('PUT', `/api/v1/conversations/${id}/reopen`, { token: ws.token })).status, 200);
  t.is((await stored()).r, null);
  t.is((await app.request('PUT', `/api/v1/conversations/${id}/resolve`, { token: ws.token })).status, 200);
  const again = await stored();
  t.is(again.r, again.r_calendar);
  t.is(again.f, first.f);
  const after = await figures();
  t.is(after.totals.first_response_median, Math.round(first.f));
  t.is(after.totals.resolution_median, Math.round(again.r));

  // Hours off: calendar time from the timestamps, whatever was stored.
  await setHours({ enabled: false });
  const calendar = await figures();
  t.is(calendar.time_basis, 'calendar');
  t.is(calendar.totals.first_response_median, Math.round(first.f_calendar));
});

test('business hours: a duration decided while the hours were off counts as calendar time once they are on', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  await seedTimes(ws.businessId, [{ created: '2026-03-27T15:30:00Z', frt: '2026-03-30T07:15:00Z', resolved: '2026-03-30T08:00:00Z' }]);
  const [row] = await app.sql(`select first_response_business_seconds as f, resolution_business_seconds as r from conversations where business_id = $1`, [
    ws.businessId,
  ]);
  t.deepEqual(row, { f: null, r: null });
  const hours = await app.request('PATCH', '/api/v1/settings/business-hours', {
    token: ws.token,
    body: { enabled: true, timezone: 'Europe/Berlin', week: officeWeek },
  });
  t.is(hours.status, 200, hours.text);
  const res = await report(ws, 'overview', { from: '2026-03-27', to: '2026-03-30', tz: 'Europe/Berlin' });
  t.is(res.body.time_basis, 'business_hours');
  // Fri 15:30Z → Mon 07:15Z = 229,500 s and → Mon 08:00Z = 232,200 s, as in calendar time.
  t.is(res.body.totals.first_response_median, 229_500);
  t.is(res.body.totals.resolution_median, 232_200);
});
