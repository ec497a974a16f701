/**
 * GET /api/v1/search: messages by their words (any language), customers by partial name,
 * e-mail or phone digits, conversations by either; highlighted snippets as text pieces; newest
 * first; keyset paging; one business only; the spec's 422s. History is written directly (as
 * inbound processing would), except one reply sent through the API to show the real write path
 * is searchable at once.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { searchConversations, searchMessages, type SearchCursor } from '../core/domain/search/history-search.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

type Segment = { text: string; match: boolean };
const plain = (snippet: Segment[]) => snippet.map((s) => s.text).join('');
const marked = (snippet: Segment[]) => snippet.filter((s) => s.match).map((s) => s.text);

async function customer(ws: Workspace, fields: { name?: string; email?: string | null; phone?: string | null; at?: string }) {
  const [row] = await app.sql(
    `insert into customers (business_id, name, email, phone, created_at) values ($1, $2, $3, $4, coalesce($5::timestamptz, now())) returning id, number`,
    [ws.businessId, fields.name ?? '', fields.email ?? null, fields.phone ?? null, fields.at ?? null],
  );
  return { uuid: row.id as string, number: Number(row.number) };
}

async function conversation(ws: Workspace, customerUuid: string | null, updatedAt: string) {
  const [row] = await app.sql(
    `insert into conversations (business_id, customer_id, channel_type, created_at, updated_at) values ($1, $2, 'webchat', $3, $3) returning id`,
    [ws.businessId, customerUuid, updatedAt],
  );
  return row.id as string;
}

async function message(ws: Workspace, conversationId: string, content: string, at: string, sender = 'customer') {
  const [row] = await app.sql(
    `insert into messages (business_id, conversation_id, sender_type, content, created_at, updated_at) values ($1, $2, $3, $4, $5, $5) returning id`,
    [ws.businessId, conversationId, sender, content, at],
  );
  return row.id as string;
}

const search = (token: string, query: Record<string, string | number | undefined>) => app.request('GET', '/api/v1/search', { token, query });

test('messages: found by a word, newest first, with the word marked in a plain-text snippet and the customer named', async (t) => {
  const ws = await createWorkspace(app);
  const ana = await customer(ws, { name: 'Ana Lopez' });
  const c1 = await conversation(ws, ana.uuid, '2026-01-05T10:00:00Z');
  const older = await message(ws, c1, 'My parcel never arrived, tracking says delivered.', '2026-01-01T10:00:00Z');
  await message(ws, c1, 'Thanks for waiting.', '2026-01-02T10:00:00Z', 'agent');
  const newer = await message(ws, c1, 'Still no PARCEL here.', '2026-01-03T10:00:00Z');
  const res = await search(ws.token, { q: 'parcel', type: 'messages' });
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.body.map((r: { id: string }) => r.id),
    [newer, older],
  );
  t.is(res.headers.get('x-next-cursor'), null);
  const first = res.body[0];
  t.is(first.type, 'message');
  t.is(first.conversation_id, c1);
  t.is(first.sender_type, 'customer');
  t.deepEqual(first.customer, { uuid: ana.uuid, name: 'Ana Lopez' });
  t.is(plain(first.snippet), 'Still no PARCEL here.');
  t.deepEqual(marked(first.snippet), ['PARCEL']);
  t.deepEqual(marked(res.body[1].snippet), ['parcel']);
  // Every word must appear; a quoted phrase in that order; an excluded word.
  t.deepEqual(
    (await search(ws.token, { q: 'parcel tracking', type: 'messages' })).body.map((r: { id: string }) => r.id),
    [older],
  );
  t.deepEqual(
    (await search(ws.token, { q: '"no parcel"', type: 'messages' })).body.map((r: { id: string }) => r.id),
    [newer],
  );
  t.deepEqual(
    (await search(ws.token, { q: 'parcel -tracking', type: 'messages' })).body.map((r: { id: string }) => r.id),
    [newer],
  );
  t.deepEqual((await search(ws.token, { q: 'zeppelin', type: 'messages' })).body, []);
});

test('messages: words of any language are found as written', async (t) => {
  const ws = await createWorkspace(app);
  const c = await conversation(ws, null, '2026-02-01T00:00:00Z');
  const de = await message(ws, c, 'Die Rücksendung wurde abgelehnt.', '2026-02-01T00:00:01Z');
  const ru = await message(ws, c, 'Где моя посылка?', '2026-02-01T00:00:02Z');
  const gr = await message(ws, c, 'Πού είναι το δέμα μου;', '2026-02-01T00:00:03Z');
  t.deepEqual(
    (await search(ws.token, { q: 'rücksendung', type: 'messages' })).body.map((r: { id: string }) => r.id),
    [de],
  );
  const res = await search(ws.token, { q: 'посылка', type: 'messages' });
  t.deepEqual(
    res.body.map((r: { id: string }) => r.id),
    [ru],
  );
  t.deepEqual(marked(res.body[0].snippet), ['посылка']);
  t.deepEqual(
    (await search(ws.token, { q: 'δέμα', type: 'messages' })).body.map((r: { id: string }) => r.id),
    [gr],
  );
});

test('a snippet is text, never markup: what a customer wrote comes back exactly as typed, pieces to render as text', async (t) => {
  const ws = await createWorkspace(app);
  const c = await conversation(ws, null, '2026-02-02T00:00:00Z');
  const content = '<img src=x onerror=alert(1)> refund <b>now</b>!';
  await message(ws, c, content, '2026-02-02T00:00:01Z');
  const res = await search(ws.token, { q: 'now', type: 'messages' });
  t.is(res.body.length, 1);
  const snippet = res.body[0].snippet as Segment[];
  t.is(plain(snippet), content);
  t.deepEqual(marked(snippet), ['now']);
  // A long message: about 36 words from a little before the first match, cut with "…".
  const long = `${'filler '.repeat(100)}the warranty claim ${'tail '.repeat(100)}`.trim();
  await message(ws, c, long, '2026-02-02T00:00:02Z');
  const cut = (await search(ws.token, { q: 'warranty', type: 'messages' })).body[0].snippet as Segment[];
  t.regex(plain(cut), /^… filler .* the warranty claim tail .* …$/);
  t.true(plain(cut).length < 300);
  t.deepEqual(marked(cut), ['warranty']);
});

test('a reply sent through the API is searchable at once', async (t) => {
  const ws = await createWorkspace(app);
  const created = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId, channel_type: 'webchat' } });
  t.is(created.status, 200, created.text);
  const sent = await app.request('POST', `/api/v1/conversations/${created.body.id}/messages`, {
    token: ws.token,
    body: { content: 'Your voucher code is SPRING-42' },
  });
  t.is(sent.status, 200, sent.text);
  const res = await search(ws.token, { q: 'voucher', type: 'messages' });
  t.deepEqual(
    res.body.map((r: { id: string }) => r.id),
    [sent.body.id],
  );
  t.deepEqual(
    (await search(ws.token, { q: 'voucher' })).body.map((r: { id: string }) => r.id),
    [created.body.id],
    'and its conversation',
  );
});

test('the longest message the API takes (10,000 characters of distinct words) is stored and found', async (t) => {
  const ws = await createWorkspace(app);
  const created = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId, channel_type: 'webchat' } });
  const words = Array.from({ length: 1200 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
  const content = `${words.join(' ')} zebracrossing`.slice(0, 10_000);
  const sent = await app.request('POST', `/api/v1/conversations/${created.body.id}/messages`, { token: ws.token, body: { content } });
  t.is(sent.status, 200, sent.text.slice(0, 300));
  const res = await search(ws.token, { q: words[600]!, type: 'messages' });
  t.deepEqual(
    res.body.map((r: { id: string }) => r.id),
    [sent.body.id],
  );
  t.deepEqual(marked(res.body[0].snippet), [words[600]]);
});

test('customers: part of a name, part of an e-mail, phone digits however formatted; newest first; the field marked', async (t) => {
  const ws = await createWorkspace(app);
  const kowalczyk = await customer(ws, { name: 'Marta Kowalczyk', email: 'marta@post.example', phone: '+48 601 234 567', at: '2026-03-01T00:00:00Z' });
  const kowal = await customer(ws, { name: 'Jan Kowal', email: 'jan.k@firma.example', phone: '+1 (555) 010-2030', at: '2026-03-02T00:00:00Z' });
  await customer(ws, { name: 'Someone Else', email: 'else@x.example', phone: '+44 20 7946 0000', at: '2026-03-03T00:00:00Z' });
  const conv = await conversation(ws, kowalczyk.uuid, '2026-03-04T00:00:00Z');
  const byName = await search(ws.token, { q: 'kowal', type: 'customers' });
  t.is(byName.status, 200, byName.text);
  t.deepEqual(
    byName.body.map((r: { uuid: string }) => r.uuid),
    [kowal.uuid, kowalczyk.uuid],
    'a partial name, newest first',
  );
  t.deepEqual(marked(byName.body[1].snippet), ['Kowal']);
  t.is(byName.body[1].type, 'customer');
  t.is(byName.body[1].id, kowalczyk.number);
  t.is(byName.body[1].latest_conversation_id, conv);
  t.is(byName.body[0].latest_conversation_id, null);
  const byMail = await search(ws.token, { q: 'FIRMA.exa', type: 'customers' });
  t.deepEqual(
    byMail.body.map((r: { uuid: string }) => r.uuid),
    [kowal.uuid],
  );
  t.deepEqual(marked(byMail.body[0].snippet), ['firma.exa']);
  const byDigits = await search(ws.token, { q: '5550102', type: 'customers' });
  t.deepEqual(
    byDigits.body.map((r: { uuid: string }) => r.uuid),
    [kowal.uuid],
    'digits typed without the formatting',
  );
  t.is(plain(byDigits.body[0].snippet), '+1 (555) 010-2030');
  t.deepEqual(marked(byDigits.body[0].snippet), ['555) 010-2'], 'the stored formatting kept, the digits marked');
  t.deepEqual(
    (await search(ws.token, { q: '601 234', type: 'customers' })).body.map((r: { uuid: string }) => r.uuid),
    [kowalczyk.uuid],
    'formatted another way',
  );
  t.deepEqual((await search(ws.token, { q: '%', type: 'customers' })).body, [], 'LIKE wildcards are taken literally');
  t.deepEqual((await search(ws.token, { q: '_', type: 'customers' })).body, []);
});

test("conversations: by a message's words or by the customer, most recently updated first, each once", async (t) => {
  const ws = await createWorkspace(app);
  const bo = await customer(ws, { name: 'Bo Refundsson' });
  const cu = await customer(ws, { name: 'Cy' });
  const byCustomer = await conversation(ws, bo.uuid, '2026-04-03T00:00:00Z');
  const byMessages = await conversation(ws, cu.uuid, '2026-04-02T00:00:00Z');
  await message(ws, byMessages, 'I want a refund please', '2026-04-01T10:00:00Z');
  const newest = await message(ws, byMessages, 'Any news on my refund?', '2026-04-01T11:00:00Z');
  await conversation(ws, cu.uuid, '2026-04-04T00:00:00Z'); // no match
  const res = await search(ws.token, { q: 'refund' });
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.body.map((r: { id: string }) => r.id),
    [byCustomer, byMessages],
    'most recently updated first, each once',
  );
  t.is(res.body[0].matched_in, 'customer', "part of the customer's name");
  t.deepEqual(marked(res.body[0].snippet), ['Refund']);
  t.is(res.body[1].matched_in, 'message');
  t.is(plain(res.body[1].snippet), 'Any news on my refund?', 'the newest matching message');
  t.deepEqual(res.body[1].customer, { uuid: cu.uuid, name: 'Cy', email: null, phone: null });
  t.truthy(newest);
  const both = await search(ws.token, { q: 'refunds', type: 'conversations' });
  t.deepEqual(
    both.body.map((r: { id: string }) => r.id),
    [byCustomer],
    "part of the customer's name",
  );
  t.is(both.body[0].matched_in, 'customer');
  t.deepEqual(marked(both.body[0].snippet), ['Refunds']);
});

test('paging: keyset cursor in X-Next-Cursor, passed back as cursor, no row twice or missed, even within one microsecond', async (t) => {
  const ws = await createWorkspace(app);
  const c = await conversation(ws, null, '2026-05-01T00:00:00Z');
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push(await message(ws, c, `invoice copy ${i}`, `2026-05-01T00:00:0${i}Z`));
  // Three more at the very same instant: ordered by id.
  for (let i = 0; i < 3; i++) ids.push(await message(ws, c, `invoice twin ${i}`, '2026-05-01T00:00:09.123456Z'));
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await search(ws.token, { q: 'invoice', type: 'messages', limit: 3, cursor });
    t.is(res.status, 200, res.text);
    t.true(res.body.length <= 3);
    seen.push(...res.body.map((r: { id: string }) => r.id));
    cursor = res.headers.get('x-next-cursor') ?? undefined;
    pages++;
  } while (cursor && pages < 10);
  t.is(pages, 4);
  t.is(new Set(seen).size, 10);
  t.deepEqual([...seen].sort(), [...ids].sort());
  const times = (await app.sql(`select id, created_at from messages where id = any($1)`, [seen])) as { id: string; created_at: Date }[];
  const at = new Map(times.map((r) => [r.id, r.created_at.getTime()]));
  t.true(
    seen.every((id, i) => i === 0 || at.get(seen[i - 1]!)! >= at.get(id)!),
    'newest first across pages',
  );
  const customersPage = await search(ws.token, { q: 'x', type: 'customers', limit: 1 });
  t.is(customersPage.status, 200);
});

test('the bounded walk and the GIN step agree: every window size gives the same pages as one unbounded pass', async (t) => {
  const ws = await createWorkspace(app);
  const c = await conversation(ws, null, '2026-07-01T00:00:00Z');
  // 60 messages, one second apart; "common" in every other one, "rare" in three (the oldest among them).
  const rare: string[] = [];
  const common: string[] = [];
  for (let i = 0; i < 60; i++) {
    const words = [i % 2 === 0 ? 'common' : 'filler', [3, 4, 50].includes(i) ? 'rare' : ''].join(' ');
    const id = await message(ws, c, words, new Date(Date.UTC(2026, 6, 1, 0, 0, i)).toISOString());
    if (words.includes('rare')) rare.unshift(id);
    if (words.includes('common')) common.unshift(id);
  }
  const all = async (text: string, walkWindows: number[], limit = 4) => {
    const ids: string[] = [];
    let after: SearchCursor | null = null;
    do {
      const page = await searchMessages(app.deps.db, { businessId: ws.businessId, text, after, limit, walkWindows });
      ids.push(...page.results.map((r) => r.id));
      after = page.next;
    } while (after);
    return ids;
  };
  for (const windows of [[], [1], [5], [5, 10], [1000]]) {
    t.deepEqual(await all('rare', windows), rare, `rare, windows ${windows}`);
    t.deepEqual(await all('common', windows), common, `common, windows ${windows}`);
  }
  // Pages of 10: a first window with 3 matches goes to the GIN index, one with 6 (WALK_SAMPLE.enough or more) walks the wider one.
  for (const windows of [
    [6, 1000],
    [12, 1000],
    [12, 20],
  ]) {
    t.deepEqual(await all('rare', windows, 10), rare, `rare, windows ${windows}, pages of 10`);
    t.deepEqual(await all('common', windows, 10), common, `common, windows ${windows}, pages of 10`);
  }
});

test('conversations: the walk and the GIN step agree: every window gives the same pages, words common or rare, matched by message or customer', async (t) => {
  const ws = await createWorkspace(app);
  const dee = await customer(ws, { name: 'Dee Zanzibar' });
  const plain = await customer(ws, { name: 'Pat' });
  // 30 conversations, each updated one minute after the previous; two messages each (one older
  // than the conversation's update). "common" in every third conversation's newer message,
  // "rare" in conversations 2 and 25's older message, and Dee (customer of 7 and 20) is found by "zanzib".
  const common: string[] = [];
  const rare: string[] = [];
  const byName: string[] = [];
  const every: string[] = [];
  for (let i = 0; i < 30; i++) {
    const at = (minutes: number) => new Date(Date.UTC(2026, 7, 1, 0, minutes)).toISOString();
    const id = await conversation(ws, [7, 20].includes(i) ? dee.uuid : plain.uuid, at(i * 10 + 5));
    await message(ws, id, [2, 25].includes(i) ? 'a rare word' : 'filler', at(i * 10));
    await message(ws, id, i % 3 === 0 ? 'common words' : 'other words', at(i * 10 + 1));
    if (i % 3 === 0) common.unshift(id);
    if ([2, 25].includes(i)) rare.unshift(id);
    if ([7, 20].includes(i)) byName.unshift(id);
    every.unshift(id);
  }
  const all = async (text: string, conversationWalk: number | undefined) => {
    const ids: string[] = [];
    let after: SearchCursor | null = null;
    do {
      const page = await searchConversations(app.deps.db, { businessId: ws.businessId, text, after, limit: 3, conversationWalk });
      ids.push(...page.results.map((r) => r.id));
      after = page.next;
    } while (after);
    return ids;
  };
  for (const walk of [undefined, 0, 1, 4, 7, 100]) {
    t.deepEqual(await all('common', walk), common, `common, walk ${walk}`);
    t.deepEqual(await all('rare', walk), rare, `rare, walk ${walk}`);
    t.deepEqual(await all('zanzib', walk), byName, `a customer's name, walk ${walk}`);
    t.deepEqual(await all('words', walk), every, `in every conversation, walk ${walk}`);
  }
});

test("isolation: another business's messages, customers and conversations are never found", async (t) => {
  const a = await createWorkspace(app);
  const b = await createWorkspace(app);
  const theirs = await customer(b, { name: 'Zofia Secretname', email: 'zofia@secret.example', phone: '+48 999 888 777' });
  const theirConversation = await conversation(b, theirs.uuid, '2026-06-01T00:00:00Z');
  await message(b, theirConversation, 'classified blueprint attached', '2026-06-01T00:00:01Z');
  for (const [type, q] of [
    ['messages', 'blueprint'],
    ['conversations', 'blueprint'],
    ['conversations', 'secretname'],
    ['customers', 'secretname'],
    ['customers', 'secret.example'],
    ['customers', '999888'],
  ]) {
    const mine = await search(a.token, { q, type });
    t.is(mine.status, 200);
    t.deepEqual(mine.body, [], `${type} ${q}`);
    const own = await search(b.token, { q, type });
    t.is(own.body.length, 1, `the owner finds ${type} ${q}`);
  }
});

test('every member may search (agents too); no business 404; no token 401', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  t.is((await search(agent.token, { q: 'anything' })).status, 200);
  const loner = await registerUser(app);
  const none = await search(loner.token, { q: 'anything' });
  t.is(none.status, 404);
  t.deepEqual(none.body, { detail: 'Business not found' });
  const anon = await app.request('GET', '/api/v1/search', { query: { q: 'x' } });
  t.is(anon.status, 401);
});

test("errors: empty or missing q, an unknown type, a bad cursor or limit are 422 in the spec's shape", async (t) => {
  const ws = await createWorkspace(app);
  const cases: [Record<string, string | undefined>, string][] = [
    [{}, 'q'],
    [{ q: '' }, 'q'],
    [{ q: '   ' }, 'q'],
    [{ q: 'x'.repeat(201) }, 'q'],
    [{ q: 'refund', type: 'tickets' }, 'type'],
    [{ q: 'refund', cursor: 'not-a-cursor' }, 'cursor'],
    [{ q: 'refund', limit: '0' }, 'limit'],
    [{ q: 'refund', limit: '51' }, 'limit'],
  ];
  for (const [query, field] of cases) {
    const res = await search(ws.token, query);
    t.is(res.status, 422, JSON.stringify(query));
    t.deepEqual(res.body.detail[0].loc, ['query', field], JSON.stringify(query));
    t.is(typeof res.body.detail[0].msg, 'string');
  }
  // Punctuation only: no words to look for, an empty answer (not an error, not a 500).
  const punctuation = await search(ws.token, { q: '!!! ??? ---', type: 'messages' });
  t.is(punctuation.status, 200);
  t.deepEqual(punctuation.body, []);
});

test('the route is documented: paging, types, snippets, who may call', async (t) => {
  const res = await app.request('GET', '/api/v1/openapi.json');
  const op = res.body.paths['/api/v1/search']?.get;
  t.truthy(op);
  t.regex(op.description, /X-Next-Cursor/);
  t.regex(op.description, /search\.read/);
  t.truthy(op.responses['422']);
  t.deepEqual(op.parameters.map((p: { name: string }) => p.name).sort(), ['cursor', 'limit', 'q', 'type']);
});
