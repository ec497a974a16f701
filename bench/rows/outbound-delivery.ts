/**
 * Outbound delivery: agent replies queued on a WhatsApp channel over 50 conversations (rows and
 * each conversation's delivery drain armed, in one statement, while the workers are already up),
 * delivered to the fake Graph API by one, then two `parley worker` processes (the first one
 * stays, a second joins it); measured from the commit until every message left `queued`.
 * Baseline: graphile-worker running the same number of no-op jobs with the same concurrency, one
 * then two processes, on the same database. Goals: ≥ 0.5× the baseline with the platform
 * answering at once; and, with the platform taking 20 ms (so the workers wait on it rather than
 * on the two cores), two workers ≥ 1.6× one.
 */
import type pg from 'pg';
import { createWorkspace, seedConversations } from '../harness/fixtures.ts';
import type { Child } from '../harness/processes.ts';
import { size, type Row } from '../harness/row.ts';
import type { Stack } from '../harness/stack.ts';
import { waitUntil } from '../harness/stats.ts';
import { result } from '../harness/table.ts';
import { round } from '../harness/stats.ts';

/** Conversations the replies are spread over (each is delivered in order by its own drain). */
const CONVERSATIONS = 50;
/** The fake platform's answer time for the scaling run: the workers wait on it, so a second one can add its slots. */
const SLOW_PLATFORM_MS = 20;

const count = async (pool: pg.Pool, text: string, values: unknown[]) => (await pool.query<{ n: number }>(text, values)).rows[0]!.n;

/** Runs `enqueue` (the workers are up), waits for `done`; jobs/s. */
async function throughput(enqueue: () => Promise<void>, done: () => Promise<boolean>, jobs: number): Promise<number> {
  const started = performance.now();
  await enqueue();
  await waitUntil(done, 600_000, `${jobs} jobs`, 20);
  return jobs / ((performance.now() - started) / 1000);
}

/** Throughput with `start()`'s process alone, then with a second one beside it. */
async function oneThenTwo(
  start: (label: string) => Promise<Child>,
  first: Child | null,
  enqueue: () => Promise<void>,
  done: () => Promise<boolean>,
  jobs: number,
) {
  const children: Child[] = [first ?? (await start('1'))];
  try {
    const one = await throughput(enqueue, done, jobs);
    children.push(await start('2'));
    const two = await throughput(enqueue, done, jobs);
    return { one, two };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

async function parleyDelivery(stack: Stack, jobs: number, latencyMs: number): Promise<{ one: number; two: number; failed: number }> {
  // The first worker makes the customers, then delivers alone; its setup jobs are done by then.
  const [web, firstWorker] = await Promise.all([stack.startWeb('outbound-web'), stack.startWorker('outbound-worker-1')]);
  let channelId: string;
  let userId: string;
  let businessId: string;
  try {
    const workspace = await createWorkspace(stack, web);
    ({ userId, businessId } = workspace);
    channelId = workspace.channels[0]!.id;
    await seedConversations(stack, web, workspace, workspace.channels[0]!, CONVERSATIONS, 0);
  } catch (error) {
    await firstWorker.stop();
    throw error;
  } finally {
    await web.child.stop();
  }
  // Replies as sendMessage stores them: rows `queued`, and each conversation's drain armed.
  const enqueue = async () => {
    await stack.pool.query(
      `with convs as (select array_agg(id) as ids, count(*)::int as n from conversations where channel_id = $1),
            m as (insert into messages (business_id, conversation_id, sender_type, sender_id, content, delivery_status, channel_id)
                  select $2, convs.ids[1 + g % convs.n], 'agent', $3, 'Bench reply ' || g, 'queued', $1
                  from convs, generate_series(1, $4::int) g returning conversation_id)
       select count(delivery_arm_drain(conversation_id)) from (select distinct conversation_id from m) as armed`,
      [channelId, businessId, userId, jobs],
    );
  };
  const settled = async () =>
    (await count(stack.pool, `select count(*)::int as n from messages where channel_id = $1 and sender_type = 'agent' and delivery_status = 'queued'`, [
      channelId,
    ])) === 0;
  stack.meta.setLatency(latencyMs);
  try {
    const { one, two } = await oneThenTwo((n) => stack.startWorker(`outbound-worker-${n}`), firstWorker, enqueue, settled, jobs);
    const failed = await count(stack.pool, `select count(*)::int as n from messages where channel_id = $1 and delivery_status = 'failed'`, [channelId]);
    return { one, two, failed };
  } finally {
    stack.meta.setLatency(0);
  }
}

async function noopJobs(stack: Stack, jobs: number): Promise<{ one: number; two: number }> {
  const enqueue = async () => {
    await stack.pool.query(`select count(graphile_worker.add_job('bench_noop', '{}'::json)) from generate_series(1, $1::int)`, [jobs]);
  };
  const done = async () => (await count(stack.pool, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'bench_noop'`, [])) === 0;
  return oneThenTwo((n) => stack.startBaseline(`outbound-noop-${n}`, 'noop-worker.ts'), null, enqueue, done, jobs);
}

export const outboundDelivery: Row = {
  id: 'outbound-delivery',
  run: async (stack) => {
    const jobs = size(stack, 2000, 200);
    const parley = await parleyDelivery(stack, jobs, 0);
    const slow = await parleyDelivery(stack, jobs, SLOW_PLATFORM_MS);
    const noop = await noopJobs(stack, jobs);
    const enforce = !stack.quick;
    const half = { text: '≥ 0.5× baseline', met: (r: { ratio: number }) => r.ratio >= 0.5 };
    const scaling = { text: '≥ 1.6×', met: (r: { figure: number }) => r.figure >= 1.6 };
    const note = `${jobs} replies per run over ${CONVERSATIONS} conversations to the fake Graph API`;
    return [
      result(
        {
          name: 'outbound delivery, 1 worker',
          figure: parley.one,
          unit: 'msg/s',
          baseline: noop.one,
          baselineLabel: 'graphile-worker no-op jobs, 1 process',
          goal: half,
          note: `${note}; failed: ${parley.failed}`,
        },
        enforce,
      ),
      result(
        { name: 'outbound delivery, 2 workers', figure: parley.two, unit: 'msg/s', baseline: noop.two, baselineLabel: 'no-op jobs, 2 processes', goal: half },
        enforce,
      ),
      result(
        {
          name: `outbound delivery, platform ${SLOW_PLATFORM_MS} ms: 2 workers / 1`,
          figure: slow.two / slow.one,
          unit: '×',
          baseline: noop.two / noop.one,
          baselineLabel: 'no-op jobs',
          goal: scaling,
          note: `${round(slow.one)} → ${round(slow.two)} msg/s; failed: ${slow.failed}`,
        },
        enforce,
      ),
    ];
  },
};
