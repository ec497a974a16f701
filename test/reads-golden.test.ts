/**
 * Golden pages (issue #39): what search and the time reports answer for one seeded business,
 * compared with test/golden/reads.json, written from the code before the speed work of issue #39.
 * A change made for speed (an index, a rewritten statement, a summary table) must give the
 * same pages, cursors followed, and the same report rows. The business is big enough that the
 * search takes both of its paths at their default sizes (the walk over the newest messages and
 * conversations, then the GIN index) and deterministic (a seeded generator, distinct timestamps),
 * so rows are named by their place in time, not by their random ids.
 *
 * `UPDATE_GOLDEN=1` rewrites the file (only after a change meant to change answers; then `npm run format`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
let ws: Workspace;
/** Random ids → stable names (`m12`: the 12th message in time, `c3`, `cu7`, the label's or member's name). */
const names = new Map<string, string>();

const GOLDEN = path.join(import.meta.dirname, 'golden', 'reads.json');
const CONVERSATIONS = 900;
const PER_CONVERSATION = 6;
const CUSTOMERS = 450;
const BASE = Date.UTC(2026, 4, 4, 6, 0, 0); // Mon 2026-05-04 06:00Z

/** mulberry32: the same numbers on every run. */
function generator(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const nineToFive = [{ open: '09:00', close: '17:00' }];
const officeWeek = { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive };

test.before(async () => {
  app = await startTestApp();
  ws = await createWorkspace(app, { name: 'Golden Owner', plan: 'Pro' });
  const ann = await addMember(app, ws.businessId, 'agent', { name: 'Ann' });
  const ben = await addMember(app, ws.businessId, 'agent', { name: 'Ben' });
  const agents = [ann.userId, ben.userId, ws.userId];
  names.set(ann.userId, 'Ann').set(ben.userId, 'Ben').set(ws.userId, 'Owner');
  const labelIds: string[] = [];
  for (let l = 1; l <= 6; l++) {
    const [row] = await app.sql(`insert into labels (business_id, name, color) values ($1, $2, '#336699') returning id`, [ws.businessId, `label ${l}`]);
    labelIds.push(row.id);
    names.set(row.id, `label ${l}`);
  }
  // Business hours on while the conversations are written, so the durations in business hours are stored.
  const hours = await app.request('PATCH', '/api/v1/settings/business-hours', {
    token: ws.token,
    body: { enabled: true, timezone: 'Europe/Berlin', week: officeWeek, holidays: [] },
  });
  if (hours.status !== 200) throw new Error(hours.text);

  const rnd = generator(39);
  const customers = Array.from({ length: CUSTOMERS }, (_, n) => ({
    name: `Customer ${n}${n % 100 === 7 ? ' Kowalczyk' : ''}`,
    email: `person${n}@mail${n % 7}.test`,
    phone: `+1 (555) ${String(n % 10).padStart(3, '0')}-${String(n).padStart(6, '0')}`,
    at: iso(BASE - 86_400_000 + n * 1000),
  }));
  const customerIds = (
    await app.sql(
      `insert into customers (business_id, name, email, phone, created_at)
       select $1, name, email, phone, at from unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) with ordinality x(name, email, phone, at, k) order by k
       returning id, created_at`,
      [ws.businessId, customers.map((c) => c.name), customers.map((c) => c.email), customers.map((c) => c.phone), customers.map((c) => c.at)],
    )
  ).map((r) => r.id as string);

  const statuses = ['open', 'pending', 'resolved', 'resolved', 'resolved', 'closed'];
  const conversations = Array.from({ length: CONVERSATIONS }, (_, i) => {
    const created = BASE + i * 2_777_000 + Math.floor(rnd() * 600_000);
    const status = statuses[Math.floor(rnd() * statuses.length)]!;
    const agent = agents[Math.floor(rnd() * agents.length)]!;
    return {
      customer: customerIds[Math.floor(rnd() * CUSTOMERS)]!,
      channel: ['webchat', 'widget', 'whatsapp', 'telegram', 'email'][Math.floor(rnd() * 5)]!,
      status,
      created: iso(created),
      updated: iso(created + 3_600_000 + i),
      firstResponse: rnd() < 0.85 ? iso(created + 30_000 + Math.floor(rnd() * 7_200_000)) : null,
      resolved: status === 'resolved' ? iso(created + 600_000 + Math.floor(rnd() * 259_200_000)) : null,
      resolver: status === 'resolved' ? agent : null,
      assignee: rnd() < 0.9 ? agent : null,
    };
  });
  const col = <K extends keyof (typeof conversations)[number]>(k: K) => conversations.map((c) => c[k]);
  const conversationIds = (
    await app.sql(
      `insert into conversations (business_id, customer_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at, resolved_by, assignee_id)
       select $1, cu, ch, st, cr, up, fr, re, rb, asg
       from unnest($2::uuid[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[], $9::uuid[], $10::uuid[])
            with ordinality x(cu, ch, st, cr, up, fr, re, rb, asg, k)
       order by k
       returning id`,
      [
        ws.businessId,
        col('customer'),
        col('channel'),
        col('status'),
        col('created'),
        col('updated'),
        col('firstResponse'),
        col('resolved'),
        col('resolver'),
        col('assignee'),
      ],
    )
  ).map((r) => r.id as string);

  // Words drawn with a skew (word k ∝ about k^-2/3): w0 in about half the messages, w150 in 1 %, w299 in few.
  const messages: { conversation: string; content: string; at: string; sender: string }[] = [];
  conversations.forEach((c, i) => {
    for (let g = 1; g <= PER_CONVERSATION; g++) {
      const words = Array.from({ length: 8 }, () => `w${Math.floor(300 * rnd() ** 3)}`);
      if (rnd() < 0.004) words.push('needle');
      messages.push({
        conversation: conversationIds[i]!,
        content: words.join(' '),
        at: iso(Date.parse(c.created) + g * 180_000 + i),
        sender: g % 2 ? 'customer' : 'agent',
      });
    }
  });
  await app.sql(
    `insert into messages (business_id, conversation_id, sender_type, content, created_at, updated_at)
     select $1, cv, se, co, at, at from unnest($2::uuid[], $3::text[], $4::text[], $5::timestamptz[]) x(cv, se, co, at)`,
    [ws.businessId, messages.map((m) => m.conversation), messages.map((m) => m.sender), messages.map((m) => m.content), messages.map((m) => m.at)],
  );
  // About half the conversations labelled, some twice.
  const pairs: [string, string][] = [];
  conversationIds.forEach((id) => {
    const r = rnd();
    const pick = Math.floor(rnd() * labelIds.length);
    if (r < 0.5) pairs.push([id, labelIds[pick]!]);
    if (r < 0.08) pairs.push([id, labelIds[(pick + 1) % labelIds.length]!]);
  });
  await app.sql(`insert into conversation_labels (business_id, conversation_id, label_id) select $1, c, l from unnest($2::uuid[], $3::uuid[]) x(c, l)`, [
    ws.businessId,
    pairs.map((p) => p[0]),
    pairs.map((p) => p[1]),
  ]);
  await app.sql('analyze messages');

  for (const [prefix, sqlText] of [
    ['m', 'select id from messages where business_id = $1 order by created_at, content'],
    ['c', 'select id from conversations where business_id = $1 order by created_at'],
    ['cu', 'select id from customers where business_id = $1 order by created_at'],
  ] as const) {
    (await app.sql(sqlText, [ws.businessId])).forEach((r, k) => names.set(r.id as string, `${prefix}${k}`));
  }
});
test.after.always(() => app?.close());

/** Every string that is one of the seeded rows' ids, replaced by its stable name; cursors by whether there is one. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'id' && typeof v === 'number' ? '(number)' : stable(v)]));
  }
  if (typeof value === 'string') return names.get(value) ?? value;
  return value;
}

const SEARCHES: { type: string; q: string }[] = [
  { type: 'messages', q: 'w0' },
  { type: 'messages', q: 'w150' },
  { type: 'messages', q: 'w299' },
  { type: 'messages', q: 'needle' },
  { type: 'messages', q: 'w3 w40' },
  { type: 'messages', q: '"w0 w1"' },
  { type: 'messages', q: 'w2 -w0' },
  { type: 'conversations', q: 'w0' },
  { type: 'conversations', q: 'w150' },
  { type: 'conversations', q: 'needle' },
  { type: 'conversations', q: 'kowalcz' },
  { type: 'customers', q: 'kowalcz' },
  { type: 'customers', q: 'person42' },
  { type: 'customers', q: '555 004' },
];
const PAGES = 3;

async function answers() {
  const out: Record<string, unknown> = {};
  for (const { type, q } of SEARCHES) {
    const pages: unknown[] = [];
    let cursor: string | undefined;
    for (let p = 0; p < PAGES; p++) {
      const res = await app.request('GET', '/api/v1/search', { token: ws.token, query: { type, q, limit: 20, cursor } });
      if (res.status !== 200) throw new Error(`${type} ${q}: ${res.status} ${res.text}`);
      pages.push(stable(res.body));
      cursor = res.headers.get('x-next-cursor') ?? undefined;
      if (!cursor) break;
    }
    out[`search ${type} ${q}`] = pages;
  }
  const range = { from: '2026-05-04', to: '2026-06-02', tz: 'Europe/Berlin' };
  for (const basis of ['business_hours', 'calendar']) {
    if (basis === 'calendar') {
      const off = await app.request('PATCH', '/api/v1/settings/business-hours', { token: ws.token, body: { enabled: false } });
      if (off.status !== 200) throw new Error(off.text);
    }
    for (const kind of ['overview', 'agents', 'channels', 'labels']) {
      const res = await app.request('GET', `/api/v1/reports/${kind}`, { token: ws.token, query: range });
      if (res.status !== 200) throw new Error(`${kind}: ${res.status} ${res.text}`);
      if (res.body.time_basis !== basis) throw new Error(`${kind}: time_basis ${res.body.time_basis}, expected ${basis}`);
      out[`report ${kind} ${basis}`] = stable(res.body);
    }
  }
  return out;
}

test('search pages (cursors followed) and the time reports answer as the golden file says', async (t) => {
  const now = await answers();
  if (process.env.UPDATE_GOLDEN) {
    writeFileSync(GOLDEN, `${JSON.stringify(now, null, 2)}\n`);
    t.pass('golden file written');
    return;
  }
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>;
  t.deepEqual(Object.keys(now), Object.keys(golden));
  for (const key of Object.keys(golden)) t.deepEqual(now[key], golden[key], key);
});
