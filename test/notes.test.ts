/**
 * Private notes and mentions (issue #22 item 1): a note never reaches a channel, the visitor API,
 * the widget or the AI agent, is not counted and leaves the conversation as it was; mentions
 * reach only the mentioned member (live event, e-mail when offline, GET /mentions), with
 * validation, roles and isolation between businesses.
 *
 * "Never receives" on sockets is checked with a marker: events from one publisher arrive in
 * order, so once a later marker has arrived, an earlier event that was going to arrive has.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { io as connectClient, type Socket } from 'socket.io-client';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Account, type Workspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { whatsappConversation } from './helpers/whatsapp-conversation.ts';
import { WIDGET_NAMESPACE } from '../core/events/bus.ts';
import { loadVisitorMessageEvent } from '../core/domain/visitors/visitor-messages.ts';

let app: TestApp;
const sockets: Socket[] = [];

test.before(async () => {
  app = await startTestApp({ env: { TRUST_PROXY_HOPS: '1', APP_URL: 'https://app.parley.test' } });
});

test.after.always(async () => {
  for (const socket of sockets) socket.close();
  await app?.close();
});

const thisMonth = `date_trunc('month', now() at time zone 'utc')::date`;

async function startConversation(ws: Workspace): Promise<any> {
  const res = await app.request('POST', '/api/v1/conversations/', { token: ws.token, body: { business_id: ws.businessId } });
  if (res.status !== 200) throw new Error(`create conversation failed: ${res.status} ${res.text}`);
  return res.body;
}

const post = (token: string, conversationId: string, body: unknown) => app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token, body });

async function note(token: string, conversationId: string, content: string, mentions: string[] = []): Promise<any> {
  const res = await post(token, conversationId, { content, private: true, mentions });
  if (res.status !== 200) throw new Error(`note failed: ${res.status} ${res.text}`);
  return res.body;
}

const memberIdOf = async (userId: string): Promise<string> => (await query(app, 'select id from team_members where user_id = $1', [userId]))[0].id;

const mentions = (token: string, q: Record<string, string | number> = {}) => app.request('GET', '/api/v1/mentions', { token, query: q });

const deliveryJobs = async (conversationId: string) =>
  (
    await query(app, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_message' and key = $1`, [
      `deliver:${conversationId}`,
    ])
  )[0].n as number;

/** The mention e-mails queued for this address (registration queued a verification mail too). */
const mailsTo = async (email: string) =>
  query(
    app,
    `select payload from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id
     where j.task_identifier = 'send_email' and p.payload->>'to' = $1 and p.payload->>'subject' like '%mentioned you%'`,
    [email],
  );

type Received = { name: string; payload: any }[];

async function connect(token: string, namespace = ''): Promise<{ socket: Socket; received: Received }> {
  const auth = namespace ? { visitor_token: token } : { token };
  const socket = connectClient(`${app.url}${namespace}`, { path: '/socket.io', transports: ['websocket'], auth, reconnection: false, forceNew: true });
  sockets.push(socket);
  const received: Received = [];
  socket.onAny((name: string, payload: unknown) => received.push({ name, payload }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  return { socket, received };
}

function nextEvent(socket: Socket, name: string, predicate: (payload: any) => boolean = () => true): Promise<any> {
  return new Promise((resolve) => {
    const listener = (payload: any) => {
      if (!predicate(payload)) return;
      socket.off(name, listener);
      resolve(payload);
    };
    socket.on(name, listener);
  });
}

// ---------------------------------------------------------------- notes

test('a note: private, not queued, no delivery drain, not counted, no first response; the conversation is left as it was', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  await app.sql(`update conversations set status = 'pending' where id = $1`, [conv.id]);
  const reply = await post(ws.token, conv.id, { content: 'A reply the customer sees' });
  await app.sql(`update conversations set status = 'pending', first_response_at = null where id = $1`, [conv.id]);
  const before = (await query(app, 'select status, updated_at, last_message_at, first_response_at from conversations where id = $1', [conv.id]))[0];
  const [{ count: counted }] = await query(
    app,
    `select coalesce(sum(count), 0)::int as count from message_counters where business_id = $1 and month = ${thisMonth}`,
    [ws.businessId],
  );
  // The reply's own drain job goes (a worker of another test may run it at any moment): a job
  // under the conversation's key after the note would be the note's.
  await query(app, 'delete from graphile_worker._private_jobs where key = $1', [`deliver:${conv.id}`]);
  const eventsBefore = app.events.length;

  const created = await post(ws.token, conv.id, { content: '  Customer is a VIP, be nice  ', private: true });
  t.is(created.status, 200, created.text);
  t.like(created.body, {
    conversation_id: conv.id,
    sender_type: 'agent',
    sender_id: ws.userId,
    content: 'Customer is a VIP, be nice',
    private: true,
    delivery_status: null,
    external_id: null,
  });

  const after = (await query(app, 'select status, updated_at, last_message_at, first_response_at from conversations where id = $1', [conv.id]))[0];
  t.deepEqual(after, before, 'status, updated_at, last_message_at and first_response_at unchanged');
  t.is(after.status, 'pending');
  t.is(after.first_response_at, null);
  t.is(await deliveryJobs(conv.id), 0, 'no delivery drain armed by the note');
  const [{ count }] = await query(app, `select coalesce(sum(count), 0)::int as count from message_counters where business_id = $1 and month = ${thisMonth}`, [
    ws.businessId,
  ]);
  t.is(count, counted, 'not counted against the month');

  // (The reply's own delivery may publish message_updated meanwhile: a worker of another test runs.)
  const events = app.events.slice(eventsBefore).filter((e) => e.payload.business_id === ws.businessId && e.payload.message_id !== reply.body.id);
  t.deepEqual(
    events.map((e) => e.name),
    ['message_created'],
    'no conversation_updated: nothing changed for the conversation',
  );
  t.is((events[0].payload.message as any).private, true);

  // Members see it, marked, everywhere messages are shown to them.
  const messages = await app.request('GET', `/api/v1/conversations/${conv.id}/messages`, { token: ws.token });
  t.deepEqual(
    messages.body.map((m: any) => [m.content, m.private]),
    [
      ['A reply the customer sees', false],
      ['Customer is a VIP, be nice', true],
    ],
  );
  const detail = await app.request('GET', `/api/v1/conversations/${conv.id}`, { token: ws.token });
  t.true(detail.body.messages.some((m: any) => m.private && m.id === created.body.id));
  // The inbox keeps the conversation's place and preview: its last message the customer can see.
  const list = await app.request('GET', '/api/v1/conversations', { token: ws.token });
  const item = list.body.find((c: any) => c.id === conv.id);
  t.is(item.last_message.id, reply.body.id);
  t.is(item.last_message.private, false);
});

test('a note at the monthly limit is still written (not counted); a reply is refused', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  await app.sql(`insert into message_counters (business_id, month, count) values ($1, ${thisMonth}, 250)`, [ws.businessId]);
  t.is((await post(ws.token, conv.id, { content: 'reply' })).status, 403);
  const n = await post(ws.token, conv.id, { content: 'note', private: true });
  t.is(n.status, 200, n.text);
  const plan = await app.request('GET', '/api/v1/business/plan', { token: ws.token });
  t.is(plan.body.usage.messages_this_month, 250);
});

test("a note may be written where the channel was deleted; 404 for another business's conversation; 422 for a non-boolean private", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const conv = await startConversation(ws);
  await app.sql('update conversations set channel_id = null where id = $1', [conv.id]);
  t.is((await post(ws.token, conv.id, { content: 'reply' })).status, 400);
  t.is((await post(ws.token, conv.id, { content: 'note', private: true })).status, 200);
  const foreign = await post(other.token, conv.id, { content: 'note', private: true });
  t.is(foreign.status, 404);
  t.deepEqual(foreign.body, { detail: 'Conversation not found' });
  const bad = await post(ws.token, conv.id, { content: 'x', private: 'yes' });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.detail[0].loc, ['body', 'private']);
});

test('WhatsApp: a note never reaches the platform; the reply after it does', async (t) => {
  const wa = await whatsappConversation();
  try {
    const n = await wa.app.request('POST', `/api/v1/conversations/${wa.conversationId}/messages`, {
      token: wa.owner.token,
      body: { content: 'internal: refund approved', private: true },
    });
    t.is(n.status, 200, n.text);
    const reply = await wa.inbox.reply(wa.conversationId, 'Your refund is on its way');
    const worker = await startTestWorker(wa.app, { only: ['deliver_message'] });
    try {
      await wa.inbox.messageSettled(wa.conversationId, reply.id, ['sent']);
    } finally {
      await worker.stop();
    }
    t.deepEqual(
      wa.fake.whatsappSent.map((m) => m.body.text?.body),
      ['Your refund is on its way'],
    );
    t.false(
      wa.fake.requests.some((r) => r.rawBody.toString('utf8').includes('refund approved')),
      'the note text never went to Graph',
    );
    const [row] = await query(wa.app, 'select delivery_status, external_id from messages where id = $1', [n.body.id]);
    t.deepEqual(row, { delivery_status: null, external_id: null });
  } finally {
    await wa.close();
  }
});

test("widget: a note is never in the visitor API nor on the visitor's socket; the reply after it is", async (t) => {
  const worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound'] });
  try {
    const ws = await createWorkspace(app);
    const widget = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: `${randomBytes(4).toString('hex')}.example.com` } });
    const session = await app.request('POST', '/api/v1/visitor/sessions', {
      body: { widget_id: widget.body.id },
      headers: { 'x-forwarded-for': `10.${randomBytes(3).join('.')}` },
    });
    const token = session.body.visitor_token;
    const mine = await app.request('POST', '/api/v1/visitor/messages', { body: { content: 'Hello?' }, headers: { authorization: `Bearer ${token}` } });
    t.is(mine.status, 200, mine.text);
    const { socket, received } = await connect(token, WIDGET_NAMESPACE);

    const n = await note(ws.token, mine.body.conversation_id, 'secret: customer owes us money');
    const replyArrives = nextEvent(socket, 'message_created', (m) => m.sender_type === 'agent');
    const reply = await post(ws.token, mine.body.conversation_id, { content: 'Hi! How can I help?' });
    t.is((await replyArrives).id, reply.body.id);
    t.false(
      received.some((e) => e.payload?.id === n.id || JSON.stringify(e.payload).includes('secret')),
      'the note never reached the widget',
    );
    t.is(await loadVisitorMessageEvent(app.deps.db, n.id), null);

    const read = await app.request('GET', '/api/v1/visitor/messages', { headers: { authorization: `Bearer ${token}` } });
    t.deepEqual(
      read.body.map((m: any) => m.content),
      ['Hello?', 'Hi! How can I help?'],
    );
    t.false('private' in read.body[1], 'visitors see no internal fields');
  } finally {
    await worker.stop();
  }
});

// ---------------------------------------------------------------- mentions

test("mentions: the mentioned member's socket gets mention_created; another member's never does", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const ana = await addMember(app, ws.businessId, 'agent', { name: 'Ana', status: 'live' });
  const bo = await addMember(app, ws.businessId, 'agent', { name: 'Bo', status: 'live' });
  const [anaId, boId] = [await memberIdOf(ana.userId), await memberIdOf(bo.userId)];
  const conv = await startConversation(ws);
  const anaSocket = await connect(ana.token);
  const boSocket = await connect(bo.token);

  const forAna = nextEvent(anaSocket.socket, 'mention_created');
  const sent = await note(ws.token, conv.id, '@Ana can you check the invoice?', [anaId, anaId]);
  const event = await forAna;
  t.like(event, { business_id: ws.businessId, conversation_id: conv.id, message_id: sent.id, member_id: anaId, user_id: ana.userId });
  t.like(event.mention, {
    id: event.mention_id,
    member_id: anaId,
    conversation_id: conv.id,
    message_id: sent.id,
    mentioned_by: ws.userId,
    mentioned_by_name: 'Owner',
    read_at: null,
  });
  t.like(event.mention.message, { id: sent.id, private: true, content: '@Ana can you check the invoice?' });

  // Marker: Bo's own mention arrives after Ana's would have.
  const forBo = nextEvent(boSocket.socket, 'mention_created');
  await note(ws.token, conv.id, '@Bo too', [boId]);
  t.is((await forBo).member_id, boId);
  t.false(boSocket.received.some((e) => e.name === 'mention_created' && e.payload.member_id === anaId));
  t.is(anaSocket.received.filter((e) => e.name === 'mention_created').length, 1, 'one mention for a member named twice');
});

test.serial('mentions: an e-mail to an offline member (with a link), none to a live one', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const away = await addMember(app, ws.businessId, 'agent', { name: 'Offline Olga', status: 'offline' });
  const here = await addMember(app, ws.businessId, 'agent', { name: 'Live Lena', status: 'live' });
  const conv = await startConversation(ws);
  // The mail is a subscriber of mention.created (core/subscribers/mention-mail.ts): the pipeline runs, the mail job waits.
  const worker = await startTestWorker(app, { only: [] });
  try {
    await note(ws.token, conv.id, 'Please call the customer back\nbefore noon', [await memberIdOf(away.userId), await memberIdOf(here.userId)]);
    const mails = await waitFor(async () => {
      const found = await mailsTo(away.email);
      return found.length ? found : null;
    });
    t.is(mails.length, 1);
    t.is(mails[0].payload.subject, 'Owner mentioned you in a note on Parley');
    t.true(mails[0].payload.text.includes('> Please call the customer back\n> before noon'));
    t.true(mails[0].payload.text.includes(`https://app.parley.test/app/inbox/${conv.id}?status=any`));
    await waitFor(async () => (await query(app, `select 1 from domain_events where conversation_id = $1 and handled_at is null`, [conv.id])).length === 0);
    t.is((await mailsTo(here.email)).length, 0);
  } finally {
    await worker.stop();
  }
});

test.serial('mentions under team-scoped visibility: no e-mail to a member who cannot see the conversation; the admin who can gets it', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent', { name: 'Teamless Tom', status: 'offline' });
  const admin = await addMember(app, ws.businessId, 'admin', { name: 'Admin Ada', status: 'offline' });
  const on = await app.request('PATCH', '/api/v1/settings/assignment', { token: ws.token, body: { team_visibility: true } });
  t.is(on.status, 200, on.text);
  // No team and no assignee: under team-scoped visibility only owners and admins see it.
  const conv = await startConversation(ws);
  t.is((await app.request('GET', `/api/v1/conversations/${conv.id}`, { token: agent.token })).status, 404);
  const worker = await startTestWorker(app, { only: [] });
  try {
    await note(ws.token, conv.id, 'Secret refund details', [await memberIdOf(agent.userId), await memberIdOf(admin.userId)]);
    await waitFor(async () => (await mailsTo(admin.email)).length === 1, 20_000, 'the admin mail');
    await waitFor(async () => (await query(app, `select 1 from domain_events where conversation_id = $1 and handled_at is null`, [conv.id])).length === 0);
    t.deepEqual(await mailsTo(agent.email), []);
  } finally {
    await worker.stop();
  }
});

test('mentions: 400 for a member of another business, an inactive or unknown member, and without private; nothing is written', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const other = await createWorkspace(app, { plan: 'Pro' });
  const outsider = await addMember(app, other.businessId, 'agent');
  const gone = await addMember(app, ws.businessId, 'agent');
  await app.sql('update team_members set is_active = false where user_id = $1', [gone.userId]);
  const colleague = await addMember(app, ws.businessId, 'agent');
  const conv = await startConversation(ws);
  const count = async () =>
    (
      await query(
        app,
        'select (select count(*) from messages where conversation_id = $1)::int as m, (select count(*) from mentions where business_id = $2)::int as n',
        [conv.id, ws.businessId],
      )
    )[0];
  const before = await count();

  for (const id of [await memberIdOf(outsider.userId), await memberIdOf(gone.userId), '00000000-0000-4000-8000-000000000000']) {
    const res = await post(ws.token, conv.id, { content: 'hi', private: true, mentions: [await memberIdOf(colleague.userId), id] });
    t.is(res.status, 400);
    t.deepEqual(res.body, { detail: `Mentioned member ${id} is not an active member of this business` });
  }
  const publicReply = await post(ws.token, conv.id, { content: 'hi', mentions: [await memberIdOf(colleague.userId)] });
  t.is(publicReply.status, 400);
  t.deepEqual(publicReply.body, { detail: 'Mentions are only allowed in private notes (private: true)' });
  t.deepEqual(await count(), before);

  const notUuid = await post(ws.token, conv.id, { content: 'hi', private: true, mentions: ['ana'] });
  t.is(notUuid.status, 422);
  t.deepEqual(notUuid.body.detail[0].loc, ['body', 'mentions', 0]);
  const notArray = await post(ws.token, conv.id, { content: 'hi', private: true, mentions: 'ana' });
  t.is(notArray.status, 422);
  const tooMany = await post(ws.token, conv.id, {
    content: 'hi',
    private: true,
    mentions: Array.from({ length: 21 }, () => '00000000-0000-4000-8000-000000000000'),
  });
  t.is(tooMany.status, 422);
});

test("GET /mentions: the caller's own, unread first, newest first, keyset pages; X-Unread-Count; PATCH read", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const ana = await addMember(app, ws.businessId, 'agent', { status: 'live' });
  const bo = await addMember(app, ws.businessId, 'admin', { status: 'live' });
  const [anaId, boId] = [await memberIdOf(ana.userId), await memberIdOf(bo.userId)];
  const conv = await startConversation(ws);
  const notes: any[] = [];
  for (let i = 0; i < 5; i++) notes.push(await note(ws.token, conv.id, `note ${i}`, [anaId]));
  await note(ws.token, conv.id, 'for Bo', [boId]);

  const all = await mentions(ana.token);
  t.is(all.status, 200, all.text);
  t.is(all.headers.get('x-unread-count'), '5');
  t.deepEqual(
    all.body.map((m: any) => m.message.content),
    ['note 4', 'note 3', 'note 2', 'note 1', 'note 0'],
  );

  // Read two: they move behind the unread ones (still newest first there).
  const read1 = await app.request('PATCH', `/api/v1/mentions/${all.body[0].id}/read`, { token: ana.token });
  t.is(read1.status, 200, read1.text);
  t.truthy(read1.body.read_at);
  const again = await app.request('PATCH', `/api/v1/mentions/${all.body[0].id}/read`, { token: ana.token });
  t.is(again.body.read_at, read1.body.read_at, 'read_at keeps the first time');
  await app.request('PATCH', `/api/v1/mentions/${all.body[2].id}/read`, { token: ana.token });

  const expected = ['note 3', 'note 1', 'note 0', 'note 4', 'note 2'];
  const first = await mentions(ana.token);
  t.is(first.headers.get('x-unread-count'), '3');
  t.deepEqual(
    first.body.map((m: any) => [m.message.content, m.read_at !== null]),
    expected.map((c, i) => [c, i >= 3]),
  );

  // Pages of 2 walk the same order, across the unread/read boundary, without repeats or gaps.
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await mentions(ana.token, cursor ? { limit: 2, before: cursor } : { limit: 2 });
    t.is(page.status, 200);
    seen.push(...page.body.map((m: any) => m.message.content));
    cursor = page.headers.get('x-next-cursor');
  } while (cursor);
  t.deepEqual(seen, expected);

  // Bo sees only his; Ana's mention is 404 for him, as are unknown ids; a bad id is 422.
  const bos = await mentions(bo.token);
  t.deepEqual(
    bos.body.map((m: any) => m.message.content),
    ['for Bo'],
  );
  const theirs = await app.request('PATCH', `/api/v1/mentions/${all.body[1].id}/read`, { token: bo.token });
  t.is(theirs.status, 404);
  t.deepEqual(theirs.body, { detail: 'Mention not found' });
  t.is(
    (await app.request('PATCH', `/api/v1/mentions/${all.body[1].id}/read`, { token: ws.token })).status,
    404,
    "not even the owner marks another member's mention",
  );
  t.is((await app.request('PATCH', '/api/v1/mentions/00000000-0000-4000-8000-000000000000/read', { token: ana.token })).status, 404);
  t.is((await app.request('PATCH', '/api/v1/mentions/nope/read', { token: ana.token })).status, 422);
  t.is((await mentions(ana.token, { before: 'garbage' })).status, 422);
  t.is((await mentions(ana.token, { limit: 0 })).status, 422);
  const [row] = await query(app, 'select read_at from mentions where id = $1', [all.body[1].id]);
  t.is(row.read_at, null);
});

test('isolation: mentions never cross businesses (list, read, mention, event)', async (t) => {
  const a = await createWorkspace(app, { plan: 'Pro' });
  const b = await createWorkspace(app, { plan: 'Pro' });
  const aAgent = await addMember(app, a.businessId, 'agent', { status: 'live' });
  const bAgent = await addMember(app, b.businessId, 'agent', { status: 'live' });
  const aConv = await startConversation(a);
  const bConv = await startConversation(b);
  const bSocket = await connect(bAgent.token);
  const aMention = (await note(a.token, aConv.id, 'for A', [await memberIdOf(aAgent.userId)])) && (await mentions(aAgent.token)).body[0];
  const forB = nextEvent(bSocket.socket, 'mention_created');
  await note(b.token, bConv.id, 'for B', [await memberIdOf(bAgent.userId)]);
  await forB;
  t.false(bSocket.received.some((e) => e.name === 'mention_created' && e.payload.business_id === a.businessId));

  t.deepEqual(
    (await mentions(bAgent.token)).body.map((m: any) => m.message.content),
    ['for B'],
  );
  t.deepEqual((await mentions(b.token)).body, []);
  t.is((await app.request('PATCH', `/api/v1/mentions/${aMention.id}/read`, { token: bAgent.token })).status, 404);
  // A's member cannot be mentioned from B, nor can A's conversation take B's note.
  t.is((await post(b.token, bConv.id, { content: 'x', private: true, mentions: [await memberIdOf(aAgent.userId)] })).status, 400);
  t.is((await post(b.token, aConv.id, { content: 'x', private: true })).status, 404);
});

test('roles: every member may write notes, mention and read their mentions; no business 404; no token 401; `can` says so', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent', { status: 'live' });
  const admin = await addMember(app, ws.businessId, 'admin', { status: 'live' });
  const conv = await startConversation(ws);
  for (const [who, target] of [
    [agent, admin],
    [admin, ws],
    [ws, agent],
  ] as [Account, Account][]) {
    const res = await post(who.token, conv.id, { content: 'note', private: true, mentions: [await memberIdOf(target.userId)] });
    t.is(res.status, 200, res.text);
    const mine = await mentions(target.token);
    t.is(mine.body.length, 1);
    t.is((await app.request('PATCH', `/api/v1/mentions/${mine.body[0].id}/read`, { token: target.token })).status, 200);
  }
  const me = await app.request('GET', '/api/v1/auth/me', { token: agent.token });
  t.like(me.body.can, { 'conversations.reply': true, 'mentions.read': true, 'mentions.mark_read': true });

  const loner = await registerUser(app);
  const none = await mentions(loner.token);
  t.is(none.status, 404);
  t.deepEqual(none.body, { detail: 'Business not found' });
  t.is((await app.request('PATCH', '/api/v1/mentions/00000000-0000-4000-8000-000000000000/read', { token: loner.token })).status, 404);
  t.is((await app.request('GET', '/api/v1/mentions')).status, 401);
  t.is((await app.request('PATCH', '/api/v1/mentions/00000000-0000-4000-8000-000000000000/read')).status, 401);
});

test("a removed member's mentions go with the membership", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent', { status: 'live' });
  const memberId = await memberIdOf(agent.userId);
  const conv = await startConversation(ws);
  await note(ws.token, conv.id, 'hi', [memberId]);
  const removed = await app.request('DELETE', `/api/v1/team/members/${memberId}`, { token: ws.token });
  t.is(removed.status, 200, removed.text);
  t.is((await query(app, 'select count(*)::int as n from mentions where member_id = $1', [memberId]))[0].n, 0);
});

test('search marks notes as private for members', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  await note(ws.token, conv.id, 'zanzibar escalation');
  await post(ws.token, conv.id, { content: 'zanzibar reply' });
  const found = await waitFor(async () => {
    const res = await app.request('GET', '/api/v1/search', { token: ws.token, query: { q: 'zanzibar', type: 'messages' } });
    return res.body.length === 2 ? res.body : null;
  });
  t.deepEqual(
    found.map((h: any) => [h.snippet.map((s: any) => s.text).join(''), h.private]),
    [
      ['zanzibar reply', false],
      ['zanzibar escalation', true],
    ],
  );
});
