import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser } from './helpers/fixtures.ts';
import { apportionPercentages } from '../core/domain/analytics.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

type Row = {
  channel: string;
  status: 'open' | 'pending' | 'resolved' | 'closed';
  /** How long ago it was created (a PostgreSQL interval). */
  age: string;
  firstResponseSecs?: number;
  handleSecs?: number;
  resolvedBy?: string;
};

async function insertConversations(businessId: string, rows: Row[]) {
  for (const r of rows) {
    await app.sql(
      `insert into conversations (business_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at, resolved_by)
       values ($1, $2, $3, now() - $4::interval, now(), now() - $4::interval + make_interval(secs => $5),
               now() - $4::interval + make_interval(secs => $6), $7)`,
      [businessId, r.channel, r.status, r.age, r.firstResponseSecs ?? null, r.handleSecs ?? null, r.resolvedBy ?? null],
    );
  }
}

const overview = (token: string) => app.request('GET', '/api/v1/analytics/overview', { token });

test('an empty business: zeros, {} and []', async (t) => {
  const ws = await createWorkspace(app);
  const res = await overview(ws.token);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, {
    total_conversations: 0,
    avg_first_response: 0,
    resolution_rate: 0,
    active_agents: 0,
    channel_mix: {},
    top_agents: [],
    quick_pulse_open: 0,
    median_handle_time: 0,
    customer_happiness: 98,
    csat_score: null,
    csat_average: null,
    csat_responses: 0,
  });
});

test('hand-made data: every figure has its known answer', async (t) => {
  const ws = await createWorkspace(app, { name: 'Olivia Owner', plan: 'Pro' });
  await app.sql(`update team_members set status = 'live' where user_id = $1`, [ws.userId]);
  // Registered in an order that is not the name order, so ties must be broken by name.
  const ben = await addMember(app, ws.businessId, 'agent', { name: 'Ben', status: 'offline' });
  const ann = await addMember(app, ws.businessId, 'admin', { name: 'Ann', status: 'away' });
  const cat = await addMember(app, ws.businessId, 'agent', { name: 'Cat', status: 'live' });
  const fay = await addMember(app, ws.businessId, 'agent', { name: 'Fay', status: 'offline' });
  const eve = await addMember(app, ws.businessId, 'agent', { name: 'Eve', status: 'offline' });
  const dan = await addMember(app, ws.businessId, 'agent', { name: 'Dan', status: 'offline' });
  // Resolved conversations by someone who is not a member count for the rate, not for top agents.
  const outsider = await registerUser(app, 'Zed Former');

  // 21 conversations in the window: 15 resolved (Ben 3, Ann 3, Cat 2, Dan 1, Eve 1, Fay 1, outsider 4), 4 open, 1 pending, 1 closed.
  const resolvers = [ben, ben, ben, ann, ann, ann, cat, cat, dan, eve, fay, outsider, outsider, outsider, outsider].map((u) => u.userId);
  const handle = [600, 600, 600, 600, 600, 3600, 3600, 3600, 3600, 3600, 86400, 86400, 86400, 86400, 1000]; // mean 24506.67 → 24507
  const firstResponses = [30, 60, 90, 120, 150, 453]; // mean 150.5 → 151 (6 of 21 have one)
  const unresolved: Row['status'][] = ['open', 'open', 'open', 'open', 'pending', 'closed'];
  // webchat 9, telegram 8, whatsapp 4 of 21: naive rounding gives 42.86 + 38.10 + 19.05 = 100.01.
  const channels = [...Array(9).fill('webchat'), ...Array(8).fill('telegram'), ...Array(4).fill('whatsapp')];
  const window: Row[] = [];
  for (let i = 0; i < 21; i++) {
    const resolved = i < 15;
    window.push({
      channel: channels[i],
      status: resolved ? 'resolved' : unresolved[i - 15],
      age: i === 0 ? '29 days 12 hours' : `${2 + (i % 27)} days`,
      handleSecs: resolved ? handle[i] : undefined,
      resolvedBy: resolved ? resolvers[i] : undefined,
      firstResponseSecs: i % 3 === 0 && i / 3 < firstResponses.length ? firstResponses[i / 3] : undefined,
    });
  }
  t.is(window.filter((r) => r.firstResponseSecs !== undefined).length, 6);
  await insertConversations(ws.businessId, window);

  // Older than 30 days: excluded from everything but "open now". Fay would top the list if they counted.
  const old: Row[] = [
    ...Array.from({ length: 5 }, () => ({
      channel: 'sms',
      status: 'resolved' as const,
      age: '40 days',
      firstResponseSecs: 100_000,
      handleSecs: 999_999,
      resolvedBy: fay.userId,
    })),
    { channel: 'email', status: 'open', age: '30 days 12 hours', firstResponseSecs: 50_000 },
  ];
  await insertConversations(ws.businessId, old);

  // Another business: its rows and its live member change nothing here.
  const other = await createWorkspace(app, { name: 'Other Owner' });
  await app.sql(`update team_members set status = 'live' where user_id = $1`, [other.userId]);
  await insertConversations(other.businessId, [
    { channel: 'x', status: 'open', age: '1 day' },
    { channel: 'x', status: 'resolved', age: '1 day', handleSecs: 5, firstResponseSecs: 5, resolvedBy: other.userId },
  ]);

  const res = await overview(ws.token);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, {
    total_conversations: 21,
    avg_first_response: 151,
    resolution_rate: 71.43,
    active_agents: 3,
    channel_mix: { webchat: 42.86, telegram: 38.09, whatsapp: 19.05 },
    top_agents: [
      { name: 'Ann', resolved: 3 },
      { name: 'Ben', resolved: 3 },
      { name: 'Cat', resolved: 2 },
      { name: 'Dan', resolved: 1 },
      { name: 'Eve', resolved: 1 },
    ],
    quick_pulse_open: 5,
    median_handle_time: 24507,
    customer_happiness: 98,
    csat_score: null,
    csat_average: null,
    csat_responses: 0,
  });
  const hundredths = Object.values(res.body.channel_mix as Record<string, number>).reduce((sum, v) => sum + Math.round(v * 100), 0);
  t.is(hundredths, 10_000);

  // Any member may read it, and sees the same figures.
  const asAgent = await overview(cat.token);
  t.is(asAgent.status, 200);
  t.deepEqual(asAgent.body, res.body);
  // The other business sees only its own.
  const theirs = await overview(other.token);
  t.like(theirs.body, { total_conversations: 2, quick_pulse_open: 1, active_agents: 1, resolution_rate: 50, channel_mix: { x: 100 } });
  t.deepEqual(theirs.body.top_agents, [{ name: 'Other Owner', resolved: 1 }]);
});

test('no business 400, no token 401', async (t) => {
  const loner = await registerUser(app, 'Loner');
  const res = await overview(loner.token);
  t.is(res.status, 400);
  t.is(typeof res.body.detail, 'string');
  t.is((await app.request('GET', '/api/v1/analytics/overview')).status, 401);
});

test('apportionPercentages: largest remainder, exactly 100, deterministic ties', (t) => {
  t.deepEqual(apportionPercentages([]), {});
  t.deepEqual(apportionPercentages([['a', 0]]), {});
  t.deepEqual(apportionPercentages([['widget', 5]]), { widget: 100 });
  // Three equal shares: the spare hundredth goes to the first name.
  t.deepEqual(
    apportionPercentages([
      ['whatsapp', 1],
      ['telegram', 1],
      ['webchat', 1],
    ]),
    { telegram: 33.34, webchat: 33.33, whatsapp: 33.33 },
  );
  // 1, 1, 4 of 6: naive rounding gives 100.01; the larger count wins the tie on remainders.
  t.deepEqual(
    apportionPercentages([
      ['a', 1],
      ['b', 1],
      ['c', 4],
    ]),
    { c: 66.67, a: 16.67, b: 16.66 },
  );
  let seed = 7;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
  for (let round = 0; round < 200; round++) {
    const counts: [string, number][] = Array.from({ length: 1 + (next() % 8) }, (_, i) => [`c${i}`, 1 + (next() % 10_000)]);
    const mix = apportionPercentages(counts);
    const units = Object.values(mix).map((v) => Math.round(v * 100));
    t.is(
      units.reduce((a, b) => a + b, 0),
      10_000,
    );
    for (const v of Object.values(mix)) t.is(Math.round(v * 100) / 100, v);
  }
});
