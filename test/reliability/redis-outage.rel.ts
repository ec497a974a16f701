/**
 * Redis stopped and started again (a Redis of this test's own on a free port, never the
 * shared one): the REST API is unaffected while it is away (reads and writes answer 200), and
 * live events reach the same open sockets again once it is back, across processes (a worker's
 * bus publishing to a socket on an API node), without anyone reconnecting by hand.
 */
import test from 'ava';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { io as connectClient, type Socket } from 'socket.io-client';
import { rooms, type EventBus } from '../../core/events/bus.ts';
import { createRedisEventBus } from '../../core/adapters/redis-events.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createWorkspace, type Workspace } from '../helpers/fixtures.ts';
import { closedPort } from '../helpers/ports.ts';
import { stopProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/worker.ts';

let port: number;
let redis: ChildProcess | null = null;
let app: TestApp;
let owner: Workspace;
let workerBus: EventBus;
let socket: Socket;

async function startRedis(): Promise<void> {
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitFor(
    async () => {
      try {
        return (
          execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] })
            .toString()
            .trim() === 'PONG'
        );
      } catch {
        return false;
      }
    },
    20_000,
    'redis-server up',
  );
}

test.before(async () => {
  port = await closedPort();
  await startRedis();
  const key = `parley-rel:${randomBytes(6).toString('hex')}`;
  const url = `redis://127.0.0.1:${port}`;
  app = await startTestApp({ redis: { key }, env: { REDIS_URL: url } });
  owner = await createWorkspace(app);
  workerBus = createRedisEventBus({ url, key, logger: app.deps.logger });
  socket = connectClient(app.url, { path: '/socket.io', transports: ['websocket'], auth: { token: owner.token }, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
});

test.after.always(async () => {
  socket?.close();
  await workerBus?.close();
  await app?.close();
  if (redis) await stopProcess(redis, 'SIGKILL');
});

/** Publishes markers from the worker's bus until the socket receives one. */
async function socketReceivesWorkerEvents(label: string): Promise<void> {
  let received = false;
  const onEvent = (payload: { id?: string }) => {
    if (payload?.id?.startsWith(label)) received = true;
  };
  socket.on('message_created', onEvent);
  try {
    let n = 0;
    await waitFor(
      async () => {
        workerBus.publish({ name: 'message_created', rooms: [rooms.business(owner.businessId)], payload: { id: `${label}-${++n}` } });
        await new Promise((r) => setTimeout(r, 100));
        return received;
      },
      30_000,
      `a ${label} event on the socket`,
    );
  } finally {
    socket.off('message_created', onEvent);
  }
}

test('Redis stopped: REST unaffected; started again: live events reach the same sockets', async (t) => {
  await socketReceivesWorkerEvents('before');
  const socketId = socket.id;

  await stopProcess(redis!, 'SIGKILL');
  redis = null;
  const me = await app.request('GET', '/api/v1/auth/me', { token: owner.token });
  t.is(me.status, 200, 'reads answer while Redis is away');
  const business = await app.request('PATCH', '/api/v1/business', { token: owner.token, body: { name: 'Renamed during the outage' } });
  t.is(business.status, 200, `writes answer while Redis is away: ${business.text}`);
  const [row] = await app.sql('select name from businesses where id = $1', [owner.businessId]);
  t.is(row.name, 'Renamed during the outage', 'and are stored');

  await startRedis();
  await socketReceivesWorkerEvents('after');
  t.true(socket.connected);
  t.is(socket.id, socketId, 'the same socket, never disconnected');
});
