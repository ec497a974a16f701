/**
 * Business hours through the API (issue #18 item 3): the settings (roles, validation,
 * isolation), the public widget config's `business_hours`, and the out-of-hours auto-responder
 * end to end: a Telegram customer writing while the team is closed gets the notice at the fake
 * Bot API once per closed period, not counted against the month; a website visitor sees it in
 * the widget's messages.
 */
import test from 'ava';
import { zonedToInstant, localDate } from '../core/domain/business-hours.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { postTelegramWebhook, startFakeTelegram, telegramTextUpdate, type FakeTelegram } from './fakes/telegram.ts';

const PUBLIC_URL = 'https://parley.example';
const TZ = 'Europe/Berlin';
const allDay = [{ open: '00:00', close: '24:00' }];
const everyDay = { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay };

let fake: FakeTelegram;
let app: TestApp;
let owner: Workspace;
let telegram: { id: string; token: string; secret: string; path: string };

/** Closed now: open around the clock every day but today (a holiday), so it opens at the next local midnight. */
const closedToday = () => ({ enabled: true, timezone: TZ, week: everyDay, holidays: [localDate(new Date(), TZ)] });
const nextMidnight = () => zonedToInstant(localDate(new Date(Date.now() + 86_400_000), TZ), 0, TZ).toISOString();

test.before(async () => {
  fake = await startFakeTelegram();
  app = await startTestApp({ env: { TELEGRAM_API_URL: fake.url, PUBLIC_URL } });
  owner = await createWorkspace(app, { plan: 'Pro' });
  const token = fake.addBot({ username: 'hours_bot' });
  const res = await app.request('POST', '/api/v1/channels/', { token: owner.token, body: { type: 'telegram', config: { bot_token: token } } });
  if (res.status !== 200) throw new Error(res.text);
  const worker = await startTestWorker(app);
  try {
    await waitFor(
      async () => (await app.sql('select status from channels where id = $1', [res.body.id]))[0].status === 'connected',
      20_000,
      'channel connected',
    );
  } finally {
    await worker.stop();
  }
  const [row] = await app.sql('select state from channels where id = $1', [res.body.id]);
  telegram = { id: res.body.id, token, secret: row.state.webhook_secret, path: new URL(fake.bot(token)!.webhook!.url).pathname };
});

test.after.always(async () => {
  await app?.close();
  await fake?.close();
});

async function setHours(body: Record<string, unknown>, token = owner.token) {
  const res = await app.request('PATCH', '/api/v1/settings/business-hours', { token, body });
  if (res.status !== 200) throw new Error(`hours: ${res.status} ${res.text}`);
  return res.body;
}

let updateId = 70_000;
let messageId = 5_000;

/** A Telegram customer writes; resolves once the message is in the inbox and no responder job is left. */
async function customerWrites(chatId: number, text: string): Promise<string> {
  updateId += 1;
  messageId += 1;
  const res = await postTelegramWebhook(
    `${app.url}${telegram.path}`,
    telegramTextUpdate({ updateId, chatId, messageId, text, firstName: `Chat${chatId}` }),
    telegram.secret,
  );
  if (res.status !== 200) throw new Error(`webhook ${res.status}`);
  const worker = await startTestWorker(app);
  try {
    const [row] = await waitFor(
      async () => {
        const rows = await app.sql(`select conversation_id from messages where content = $1 and channel_id = $2`, [text, telegram.id]);
        return rows.length ? rows : null;
      },
      20_000,
      `"${text}" stored`,
    );
    await waitFor(
      async () => {
        const [jobs] = await app.sql(
          `select count(*)::int as n from graphile_worker.jobs where task_identifier in ('handle_events', 'out_of_hours_reply', 'deliver_message', 'process_inbound')`,
        );
        const [queued] = await app.sql(`select count(*)::int as n from messages where delivery_status = 'queued'`);
        return jobs.n === 0 && queued.n === 0;
      },
      20_000,
      'jobs settled',
    );
    return row.conversation_id;
  } finally {
    await worker.stop();
  }
}

const noticesTo = (chatId: number) => fake.sent.filter((m) => m.token === telegram.token && m.chat_id === String(chatId));
const monthCount = async () =>
  (await app.sql('select coalesce(sum(count), 0)::int as n from message_counters where business_id = $1', [owner.businessId]))[0].n as number;

test.serial('settings: defaults; any member reads; owner or admin change; agents 403; no business 404', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  const admin = await addMember(app, ws.businessId, 'admin');
  const read = await app.request('GET', '/api/v1/settings/business-hours', { token: agent.token });
  t.is(read.status, 200);
  t.deepEqual(read.body, {
    enabled: false,
    timezone: 'UTC',
    week: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
    holidays: [],
    out_of_hours_message: 'Thanks for your message! Our team is away right now; we will answer as soon as we are back.',
    is_open: true,
    next_open_at: null,
  });
  const refused = await app.request('PATCH', '/api/v1/settings/business-hours', { token: agent.token, body: { enabled: true } });
  t.is(refused.status, 403);
  t.is(refused.body.detail, 'Only the owner or an admin can change business hours');
  const saved = await setHours(
    {
      enabled: true,
      timezone: 'America/New_York',
      week: {
        fri: [
          { open: '13:00', close: '17:00' },
          { open: '09:00', close: '12:00' },
        ],
      },
      holidays: ['2026-12-25', '2026-01-01', '2026-12-25'],
      out_of_hours_message: '  Back soon!  ',
    },
    admin.token,
  );
  t.like(saved, { enabled: true, timezone: 'America/New_York', holidays: ['2026-01-01', '2026-12-25'], out_of_hours_message: 'Back soon!' });
  t.deepEqual(saved.week.fri, [
    { open: '09:00', close: '12:00' },
    { open: '13:00', close: '17:00' },
  ]);
  t.deepEqual(saved.week.mon, []);
  // Omitted fields keep their value; the other business is untouched.
  t.like(await setHours({ out_of_hours_message: 'Later' }, admin.token), { timezone: 'America/New_York', enabled: true, out_of_hours_message: 'Later' });
  t.like((await app.request('GET', '/api/v1/settings/business-hours', { token: owner.token })).body, { enabled: false, timezone: 'UTC' });
  const loner = await registerUser(app, 'Loner');
  t.is((await app.request('GET', '/api/v1/settings/business-hours', { token: loner.token })).status, 404);
  t.is((await app.request('PATCH', '/api/v1/settings/business-hours', { token: loner.token, body: { enabled: true } })).status, 404);
});

test.serial('settings: validation errors are 422 and change nothing', async (t) => {
  const ws = await createWorkspace(app);
  const bad: Record<string, unknown>[] = [
    { timezone: 'Mars/Olympus_Mons' },
    { timezone: '+01:00' },
    { week: { monday: [{ open: '09:00', close: '17:00' }] } },
    { week: { mon: [{ open: '9:00', close: '17:00' }] } },
    { week: { mon: [{ open: '09:00', close: '25:00' }] } },
    { week: { mon: [{ open: '17:00', close: '09:00' }] } },
    {
      week: {
        mon: [
          { open: '09:00', close: '13:00' },
          { open: '12:00', close: '17:00' },
        ],
      },
    },
    { holidays: ['2026-02-30'] },
    { holidays: ['25.12.2026'] },
    { out_of_hours_message: '   ' },
    { out_of_hours_message: 'x'.repeat(2001) },
    { enabled: 'yes' },
  ];
  for (const body of bad) {
    const res = await app.request('PATCH', '/api/v1/settings/business-hours', { token: ws.token, body });
    t.is(res.status, 422, JSON.stringify(body));
    t.true(Array.isArray(res.body.detail), JSON.stringify(res.body));
  }
  t.like((await app.request('GET', '/api/v1/settings/business-hours', { token: ws.token })).body, { enabled: false, timezone: 'UTC' });
});

test.serial('widget config: business_hours says whether the team is in hours and when it next opens', async (t) => {
  const ws = await createWorkspace(app);
  const created = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'hours.example.com' } });
  t.is(created.status, 200, created.text);
  const read = async () => (await app.request('GET', `/api/v1/widget/${created.body.id}`)).body.business_hours;
  t.deepEqual(await read(), { enabled: false, is_open: true, next_open_at: null, timezone: 'UTC' });
  await setHours(closedToday(), ws.token);
  t.deepEqual(await read(), { enabled: true, is_open: false, next_open_at: nextMidnight(), timezone: TZ });
  await setHours({ holidays: [] }, ws.token);
  t.deepEqual(await read(), { enabled: true, is_open: true, next_open_at: null, timezone: TZ });
  const settings = (await app.request('GET', '/api/v1/settings/business-hours', { token: ws.token })).body;
  t.like(settings, { is_open: true, next_open_at: null });
});

test.serial('auto-responder: out of hours the customer gets the message once per closed period, through the channel, not counted', async (t) => {
  await setHours({ ...closedToday(), out_of_hours_message: 'We are closed today; back tomorrow.' });
  const countBefore = await monthCount();
  const chat = 610_001;
  const conversation = await customerWrites(chat, 'Anyone there?');
  t.deepEqual(
    noticesTo(chat).map((m) => m.text),
    ['We are closed today; back tomorrow.'],
  );
  const messages = await app.sql(`select sender_type, content, delivery_status, external_id from messages where conversation_id = $1 order by created_at`, [
    conversation,
  ]);
  t.is(messages.length, 2);
  t.like(messages[1], { sender_type: 'system', content: 'We are closed today; back tomorrow.', delivery_status: 'sent' });
  t.truthy(messages[1].external_id);
  t.is(await monthCount(), countBefore, 'the notice is not counted against the month');
  const [decided] = await app.sql('select hours_checked_until from conversations where id = $1', [conversation]);
  t.is(decided.hours_checked_until.toISOString(), nextMidnight());
  // The agent sees it in the thread as a system message.
  const thread = await app.request('GET', `/api/v1/conversations/${conversation}/messages`, { token: owner.token });
  t.true(thread.body.some((m: any) => m.sender_type === 'system' && m.content === 'We are closed today; back tomorrow.'));

  // Same closed period: no second notice (and no job was even armed).
  await customerWrites(chat, 'Hello??');
  t.is(noticesTo(chat).length, 1);
  t.is((await app.sql(`select count(*)::int as n from messages where conversation_id = $1 and sender_type = 'system'`, [conversation]))[0].n, 1);

  // A new closed period (here: the team opened and closed again, as the record of the last decision ran out).
  await app.sql(`update conversations set hours_checked_until = now() - interval '1 second' where id = $1`, [conversation]);
  await customerWrites(chat, 'Back again');
  t.is(noticesTo(chat).length, 2);

  // Changed settings decide afresh: the new text goes out.
  await setHours({ out_of_hours_message: 'Closed for the holiday.' });
  await customerWrites(chat, 'Still there?');
  t.deepEqual(
    noticesTo(chat).map((m) => m.text),
    ['We are closed today; back tomorrow.', 'We are closed today; back tomorrow.', 'Closed for the holiday.'],
  );
});

test.serial('auto-responder: within hours or with hours off, nothing is sent', async (t) => {
  await setHours({ enabled: true, timezone: TZ, week: everyDay, holidays: [] });
  const chat = 610_002;
  const conversation = await customerWrites(chat, 'Open now?');
  t.is(noticesTo(chat).length, 0);
  const [row] = await app.sql('select hours_checked_until from conversations where id = $1', [conversation]);
  t.truthy(row.hours_checked_until, 'the open period is recorded: the next messages arm nothing');
  await setHours({ enabled: false, holidays: [localDate(new Date(), TZ)] });
  await customerWrites(610_003, 'Hours are off');
  t.is(noticesTo(610_003).length, 0);
  t.is(
    (
      await app.sql(
        `select count(*)::int as n from messages where sender_type = 'system' and business_id = $1 and content <> 'We are closed today; back tomorrow.' and content <> 'Closed for the holiday.'`,
        [owner.businessId],
      )
    )[0].n,
    0,
  );
});

test.serial('auto-responder: a website visitor sees the notice in the widget', async (t) => {
  const ws = await createWorkspace(app);
  const created = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'visitors.example.com' } });
  await setHours({ ...closedToday(), out_of_hours_message: 'Away until tomorrow.' }, ws.token);
  const session = await app.request('POST', '/api/v1/visitor/sessions', {
    body: { widget_id: created.body.id },
    headers: { 'x-forwarded-for': '203.0.113.77' },
  });
  t.is(session.status, 200, session.text);
  const auth = { authorization: `Bearer ${session.body.visitor_token}` };
  const sent = await app.request('POST', '/api/v1/visitor/messages', { body: { content: 'Hi from the website' }, headers: auth });
  t.is(sent.status, 200, sent.text);
  const worker = await startTestWorker(app);
  try {
    const messages = await waitFor(
      async () => {
        const res = await app.request('GET', '/api/v1/visitor/messages', { headers: auth });
        return res.body.some((m: any) => m.sender_type === 'system') ? res.body : null;
      },
      20_000,
      'the notice in the widget',
    );
    t.deepEqual(
      messages.map((m: any) => [m.sender_type, m.content]),
      [
        ['customer', 'Hi from the website'],
        ['system', 'Away until tomorrow.'],
      ],
    );
  } finally {
    await worker.stop();
  }
});
