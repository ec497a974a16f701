/**
 * Reports (issue #18 item 6) against figures computed by hand: a small set of conversations
 * around the night Europe/Berlin moves its clocks forward (2026-03-29, 02:00 → 03:00 local,
 * 01:00 UTC), so the local days are 24, 23 and 24 hours long and differ from UTC's. Medians
 * and 90th percentiles are PostgreSQL's percentile_cont (linear interpolation):
 * p90 of n sorted samples = s[k] + f·(s[k+1] − s[k]) with k + f = 0.9·(n − 1).
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Account, type Workspace } from './helpers/fixtures.ts';
import { csvField, resolveRange } from '../core/domain/reports.ts';

let app: TestApp;
let ws: Workspace;
let ann: Account;
let ben: Account;
let cy: Account;
let labels: Record<string, string>;

type Seed = { name: string; created: string; channel: string; frt?: number; resolvedAfter?: number; assignee?: string; resolver?: string; labels?: string[] };

async function seed(businessId: string, rows: Seed[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const r of rows) {
    const [row] = await app.sql(
      `insert into conversations (business_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at, resolved_by, assignee_id)
       values ($1, $2, $3, $4::timestamptz, now(), $4::timestamptz + make_interval(secs => $5), $4::timestamptz + make_interval(secs => $6), $7, $8)
       returning id`,
      [
        businessId,
        r.channel,
        r.resolvedAfter === undefined ? 'open' : 'resolved',
        r.created,
        r.frt ?? null,
        r.resolvedAfter ?? null,
        r.resolver ?? null,
        r.assignee ?? null,
      ],
    );
    ids[r.name] = row.id;
    for (const label of r.labels ?? []) {
      await app.sql('insert into conversation_labels (business_id, conversation_id, label_id) values ($1, $2, $3)', [businessId, row.id, labels[label]]);
    }
  }
  return ids;
}

async function label(businessId: string, name: string, color = '#336699'): Promise<string> {
  const [row] = await app.sql('insert into labels (business_id, name, color) values ($1, $2, $3) returning id', [businessId, name, color]);
  return row.id;
}

const BERLIN = { from: '2026-03-28', to: '2026-03-30', tz: 'Europe/Berlin' };

test.before(async () => {
  app = await startTestApp();
  ws = await createWorkspace(app, { name: 'Olivia Owner', plan: 'Pro' });
  ann = await addMember(app, ws.businessId, 'admin', { name: 'Ann' });
  ben = await addMember(app, ws.businessId, 'agent', { name: 'Ben' });
  cy = await addMember(app, ws.businessId, 'agent', { name: 'Cy, the "Third"' });
  labels = { billing: await label(ws.businessId, 'billing'), vip: await label(ws.businessId, 'vip', '#aa0000'), unused: await label(ws.businessId, '=unused') };
  await seed(ws.businessId, [
    // Created the local evening before the range; resolved inside it (on the 28th, 7200 s).
    { name: 'A', created: '2026-03-27T22:30:00Z', channel: 'email', resolvedAfter: 7200, resolver: ben.userId },
    // 28th 00:00 local (CET, +01:00) … 28th 23:59 local.
    { name: 'B', created: '2026-03-27T23:00:00Z', channel: 'webchat', frt: 60, assignee: ann.userId, labels: ['billing'] },
    {
      name: 'C',
      created: '2026-03-28T22:59:00Z',
      channel: 'webchat',
      frt: 120,
      resolvedAfter: 3600,
      assignee: ann.userId,
      resolver: ann.userId,
      labels: ['billing', 'vip'],
    },
    // 29th 00:00 local … 29th 23:59 local (CEST from 03:00, +02:00): a 23-hour day.
    { name: 'D', created: '2026-03-28T23:00:00Z', channel: 'webchat', frt: 180, assignee: ann.userId },
    { name: 'E', created: '2026-03-29T21:59:00Z', channel: 'telegram', frt: 240, assignee: ben.userId },
    // 30th 00:00 local (22:00 UTC) … 30th 23:59:59 local; F has no reply yet and nobody assigned.
    { name: 'F', created: '2026-03-29T22:00:00Z', channel: 'telegram', resolvedAfter: 600, resolver: ann.userId, labels: ['billing'] },
    { name: 'G', created: '2026-03-30T21:59:59Z', channel: 'email', frt: 300, assignee: ben.userId, labels: ['vip'] },
    // 31st 00:00 local: after the range.
    { name: 'H', created: '2026-03-30T22:00:00Z', channel: 'email', frt: 1000, assignee: ben.userId, resolvedAfter: 60, resolver: ben.userId, labels: ['vip'] },
  ]);
  // Another business with conversations in the same days and a label of the same name: never counted here.
  const other = await createWorkspace(app, { name: 'Noise Owner' });
  const noiseLabel = await label(other.businessId, 'billing');
  const noise = await app.sql(
    `insert into conversations (business_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at, resolved_by, assignee_id)
     select $1, 'webchat', 'resolved', t, t, t + interval '5 seconds', t + interval '9 seconds', $2, $2
     from generate_series('2026-03-27T00:00:00Z'::timestamptz, '2026-03-31T00:00:00Z', interval '1 hour') t returning id`,
    [other.businessId, other.userId],
  );
  for (const { id } of noise)
    await app.sql('insert into conversation_labels (business_id, conversation_id, label_id) values ($1, $2, $3)', [other.businessId, id, noiseLabel]);
});
test.after.always(() => app?.close());

const report = (kind: string, query: Record<string, string> = BERLIN, token = ws.token) => app.request('GET', `/api/v1/reports/${kind}`, { token, query });
const fig = (opened: number, resolved: number, frMedian: number | null, frP90: number | null, resMedian: number | null, resP90: number | null) => ({
  opened,
  resolved,
  first_response_median: frMedian,
  first_response_p90: frP90,
  resolution_median: resMedian,
  resolution_p90: resP90,
});

test('overview: totals and local days across the DST change, by hand', async (t) => {
  const res = await report('overview');
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, {
    ...BERLIN,
    time_basis: 'calendar',
    // Opened B–G; replies 60 120 180 240 300 (F none): median 180, p90 240 + 0.6·60 = 276.
    // Resolved A 7200, C 3600, F 600: median 3600, p90 3600 + 0.8·3600 = 6480.
    totals: fig(6, 3, 180, 276, 3600, 6480),
    days: [
      // B 60, C 120: median 90, p90 60 + 0.9·60 = 114; A resolved (7200).
      { date: '2026-03-28', ...fig(2, 1, 90, 114, 7200, 7200) },
      // D 180, E 240 (E at 23:59 local, 21:59 UTC); C resolved at 00:59 local on the 29th.
      { date: '2026-03-29', ...fig(2, 1, 210, 234, 3600, 3600) },
      // F (no reply), G 300; F resolved (600). H at 00:00 on the 31st is out.
      { date: '2026-03-30', ...fig(2, 1, 300, 300, 600, 600) },
    ],
  });
});

test('overview: the same dates in UTC are other buckets', async (t) => {
  const res = await report('overview', { ...BERLIN, tz: 'UTC' });
  t.is(res.status, 200, res.text);
  t.is(res.body.tz, 'UTC');
  // UTC days: 28th C D, 29th E F, 30th G H. Resolved: A (00:30 28th), C (23:59 28th), F (22:10 29th), H (22:01 30th).
  t.deepEqual(res.body.days, [
    { date: '2026-03-28', ...fig(2, 2, 150, 174, 5400, 6840) },
    { date: '2026-03-29', ...fig(2, 1, 240, 240, 600, 600) },
    { date: '2026-03-30', ...fig(2, 1, 650, 930, 60, 60) },
  ]);
  t.deepEqual(res.body.totals, fig(6, 4, 240, 720, 2100, 6120));
});

test('overview: a zone spelled in lower case is answered in its canonical spelling; empty days are zeros and nulls', async (t) => {
  const res = await report('overview', { from: '2026-03-01', to: '2026-03-02', tz: 'europe/berlin' });
  t.is(res.status, 200, res.text);
  t.is(res.body.tz, 'Europe/Berlin');
  t.deepEqual(res.body.days, [
    { date: '2026-03-01', ...fig(0, 0, null, null, null, null) },
    { date: '2026-03-02', ...fig(0, 0, null, null, null, null) },
  ]);
  t.deepEqual(res.body.totals, fig(0, 0, null, null, null, null));
});

test('agents: assigned and first response by assignee, resolutions by resolver, every member and the unassigned', async (t) => {
  const res = await report('agents');
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, {
    ...BERLIN,
    time_basis: 'calendar',
    rows: [
      // B C D: 60 120 180 → 120, p90 120 + 0.8·60 = 168; resolved C 3600, F 600 → 2100, p90 600 + 0.9·3000 = 3300.
      { user_id: ann.userId, name: 'Ann', ...fig(3, 2, 120, 168, 2100, 3300) },
      // E G: 240 300 → 270, 294; resolved A 7200.
      { user_id: ben.userId, name: 'Ben', ...fig(2, 1, 270, 294, 7200, 7200) },
      { user_id: cy.userId, name: 'Cy, the "Third"', ...fig(0, 0, null, null, null, null) },
      { user_id: ws.userId, name: 'Olivia Owner', ...fig(0, 0, null, null, null, null) },
      // F: opened with nobody assigned, no reply.
      { user_id: null, name: 'Unassigned', ...fig(1, 0, null, null, null, null) },
    ],
  });
});

test('channels: per channel type, most opened first', async (t) => {
  const res = await report('channels');
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.rows, [
    { channel_type: 'webchat', ...fig(3, 1, 120, 168, 3600, 3600) },
    { channel_type: 'telegram', ...fig(2, 1, 240, 240, 600, 600) },
    { channel_type: 'email', ...fig(1, 1, 300, 300, 7200, 7200) },
  ]);
});

test('labels: every label of the business by name, a conversation under each of its labels', async (t) => {
  const res = await report('labels');
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.rows, [
    { label_id: labels.unused, name: '=unused', color: '#336699', ...fig(0, 0, null, null, null, null) },
    // B C F: replies 60 120 → 90, 114; resolved C 3600, F 600 → 2100, 3300.
    { label_id: labels.billing, name: 'billing', color: '#336699', ...fig(3, 2, 90, 114, 2100, 3300) },
    // C G: 120 300 → 210, 282; resolved C.
    { label_id: labels.vip, name: 'vip', color: '#aa0000', ...fig(2, 1, 210, 282, 3600, 3600) },
  ]);
});

test('CSV: text/csv attachment with a file name; days then the total; empty cells for nulls', async (t) => {
  const res = await report('overview', { ...BERLIN, format: 'csv' });
  t.is(res.status, 200, res.text);
  t.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.is(res.headers.get('content-disposition'), 'attachment; filename="parley-overview-2026-03-28-to-2026-03-30.csv"');
  t.is(
    res.text,
    'date,opened,resolved,first_response_median_seconds,first_response_p90_seconds,resolution_median_seconds,resolution_p90_seconds\r\n' +
      '2026-03-28,2,1,90,114,7200,7200\r\n' +
      '2026-03-29,2,1,210,234,3600,3600\r\n' +
      '2026-03-30,2,1,300,300,600,600\r\n' +
      'total,6,3,180,276,3600,6480\r\n',
  );
  const agents = await report('agents', { ...BERLIN, format: 'csv' });
  t.is(agents.headers.get('content-disposition'), 'attachment; filename="parley-agents-2026-03-28-to-2026-03-30.csv"');
  const lines = agents.text.trimEnd().split('\r\n');
  t.is(lines[0], 'user_id,name,opened,resolved,first_response_median_seconds,first_response_p90_seconds,resolution_median_seconds,resolution_p90_seconds');
  t.is(lines[3], `${cy.userId},"Cy, the ""Third""",0,0,,,,`);
  t.is(lines[5], ',Unassigned,1,0,,,,');
  const labelsCsv = await report('labels', { ...BERLIN, format: 'csv' });
  // A name a spreadsheet would run as a formula is written as text.
  t.is(labelsCsv.text.split('\r\n')[1], `${labels.unused},'=unused,#336699,0,0,,,,`);
  const channels = await report('channels', { ...BERLIN, format: 'csv' });
  t.is(channels.text.split('\r\n')[1], 'webchat,3,1,120,168,3600,3600');
});

test('csv fields: quotes, commas, line breaks and formula starts', (t) => {
  t.is(csvField('plain'), 'plain');
  t.is(csvField('a,b'), '"a,b"');
  t.is(csvField('say "hi"'), '"say ""hi"""');
  t.is(csvField('two\nlines'), '"two\nlines"');
  t.is(csvField('+1 555'), "'+1 555");
  t.is(csvField('@home'), "'@home");
  t.is(csvField(-5), '-5');
  t.is(csvField(null), '');
});

test('validation: dates, order, length, zone and format are 422 with where', async (t) => {
  const cases: [Record<string, string>, string, string][] = [
    [{ from: '2026-02-30', to: '2026-03-01' }, 'from', 'date_parsing'],
    [{ from: 'yesterday', to: '2026-03-01' }, 'from', 'date_parsing'],
    [{ from: '2026-03-01', to: '2026-03-01T10:00:00Z' }, 'to', 'date_parsing'],
    [{ from: '2026-03-02', to: '2026-03-01' }, 'to', 'date_range'],
    [{ from: '2025-01-01', to: '2026-01-02' }, 'to', 'date_range'],
    [{ tz: 'Mars/Olympus_Mons' }, 'tz', 'time_zone'],
    [{ tz: '+01:00' }, 'tz', 'time_zone'],
    [{ format: 'xlsx' }, 'format', 'enum'],
  ];
  for (const [query, field, type] of cases) {
    const res = await report('overview', query);
    t.is(res.status, 422, JSON.stringify(query));
    t.deepEqual(
      res.body.detail.map((d: { loc: string[] }) => d.loc),
      [['query', field]],
      JSON.stringify(query),
    );
    t.true(res.body.detail[0].type.includes(type), `${JSON.stringify(query)}: ${res.body.detail[0].type}`);
  }
  // 366 days, both ends included, is the longest range.
  const longest = await report('overview', { from: '2025-01-01', to: '2026-01-01' });
  t.is(longest.status, 200, longest.text);
  t.is(longest.body.days.length, 366);
  const one = await report('channels', { from: '2026-03-28', to: '2026-03-28', tz: 'Europe/Berlin' });
  t.is(one.status, 200);
});

test('defaults: the last 30 local days up to today, UTC', async (t) => {
  const res = await report('overview', {});
  t.is(res.status, 200, res.text);
  const expected = resolveRange({});
  t.deepEqual([res.body.from, res.body.to, res.body.tz], [expected.from, expected.to, 'UTC']);
  t.is(res.body.days.length, 30);
  t.deepEqual(resolveRange({ to: '2026-03-30' }), { from: '2026-03-01', to: '2026-03-30', tz: 'UTC' });
  t.deepEqual(resolveRange({ from: '2026-01-01' }, new Date('2026-06-01T12:00:00Z')), { from: '2026-01-01', to: '2026-01-30', tz: 'UTC' });
  t.deepEqual(resolveRange({ from: '2026-05-20', tz: 'Pacific/Auckland' }, new Date('2026-06-01T12:00:00Z')), {
    from: '2026-05-20',
    to: '2026-06-02',
    tz: 'Pacific/Auckland',
  });
});

test('roles: owner and admin read reports; an agent gets 403 and no business 400', async (t) => {
  for (const kind of ['overview', 'agents', 'channels', 'labels', 'csat', 'sla']) {
    t.is((await report(kind, BERLIN, ws.token)).status, 200, kind);
    t.is((await report(kind, BERLIN, ann.token)).status, 200, kind);
    const refused = await report(kind, BERLIN, ben.token);
    t.is(refused.status, 403, kind);
    t.is(refused.body.detail, 'Only the owner or an admin can read reports');
    t.is((await report(kind, { ...BERLIN, format: 'csv' }, ben.token)).status, 403, kind);
  }
  const loner = await registerUser(app, 'Loner');
  const none = await report('overview', BERLIN, loner.token);
  t.is(none.status, 400);
  t.is(none.body.detail, 'Organization not found');
  t.is((await app.request('GET', '/api/v1/reports/overview')).status, 401);
  const me = await app.request('GET', '/api/v1/auth/me', { token: ben.token });
  t.false(me.body.can['reports.read']);
  t.true((await app.request('GET', '/api/v1/auth/me', { token: ann.token })).body.can['reports.read']);
});

test('isolation: another business sees only its own conversations and labels', async (t) => {
  const other = await createWorkspace(app, { name: 'Second Owner' });
  await seed(other.businessId, [{ name: 'X', created: '2026-03-28T12:00:00Z', channel: 'sms', frt: 5 }]);
  const overview = await report('overview', BERLIN, other.token);
  t.deepEqual(overview.body.totals, fig(1, 0, 5, 5, null, null));
  const channels = await report('channels', BERLIN, other.token);
  t.deepEqual(
    channels.body.rows.map((r: { channel_type: string }) => r.channel_type),
    ['sms'],
  );
  t.deepEqual((await report('labels', BERLIN, other.token)).body.rows, []);
  const agents = await report('agents', BERLIN, other.token);
  t.deepEqual(
    agents.body.rows.map((r: { name: string }) => r.name),
    ['Second Owner', 'Unassigned'],
  );
});
