/**
 * A channel whose platform cannot be reached: every failed register_channel attempt shows its
 * reason on the channel (GET /channels), `pending` while retries remain and `error` after the
 * last; the real worker runs the job against a Telegram API address where nothing listens.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace } from './helpers/fixtures.ts';
import { closedPort } from './helpers/ports.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { TELEGRAM_API_URL: `http://127.0.0.1:${await closedPort()}` } });
});
test.after.always(() => app?.close());

const jobOf = async (channelId: string) =>
  (await app.sql('select id::text, attempts, max_attempts, locked_at from graphile_worker.jobs where key = $1', [`register:${channelId}`]))[0];

test('each failed attempt records its reason; the last one turns the channel to error', async (t) => {
  const owner = await createWorkspace(app, { plan: 'Pro' });
  const created = await app.request('POST', '/api/v1/channels/', { token: owner.token, body: { type: 'telegram', config: { bot_token: '123456:ABC-DEF' } } });
  t.is(created.status, 200, created.text);
  const channelId: string = created.body.id;
  // Two attempts instead of 25, so the test reaches the last one.
  await app.sql(`update graphile_worker._private_jobs set max_attempts = 2 where key = $1`, [`register:${channelId}`]);
  const channel = async () => (await app.request('GET', '/api/v1/channels', { token: owner.token })).body.find((c: { id: string }) => c.id === channelId);

  const worker = await startTestWorker(app, { only: ['register_channel'] });
  t.teardown(() => worker.stop());
  const first = await waitFor(
    async () => {
      const job = await jobOf(channelId);
      return job?.attempts === 1 && job.locked_at === null ? channel() : null;
    },
    20_000,
    'the first attempt to fail',
  );
  t.is(first.status, 'pending');
  t.regex(first.last_error, /^Telegram unreachable: .* \(attempt 1 of 2, retrying\)$/);
  t.true(app.events.some((e) => e.name === 'channel_updated' && e.payload.channel_id === channelId && e.payload.status === 'pending'));

  // Skip the backoff: the second attempt is the last.
  await app.sql(`update graphile_worker._private_jobs set run_at = now() where key = $1`, [`register:${channelId}`]);
  const last = await waitFor(
    async () => {
      const body = await channel();
      return body.status === 'error' ? body : null;
    },
    20_000,
    'the last attempt to fail',
  );
  t.regex(last.last_error, /^Telegram unreachable: .* \(gave up after 2 attempts\)$/);
  t.true(app.events.some((e) => e.name === 'channel_updated' && e.payload.channel_id === channelId && e.payload.status === 'error'));
  const job = await jobOf(channelId);
  t.is(job.attempts, 2, 'the job stays, failed, for parley jobs failed / retry');
});
