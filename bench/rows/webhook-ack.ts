/**
 * Webhook acknowledgement: signed WhatsApp webhooks offered at 500/s (open loop) to `parley web`
 * with a worker draining behind it, as in production; baseline: bare node:http at the same rate.
 * Goal: the full offered rate, p50 ≤ 5 ms, p99 ≤ 25 ms.
 */
import { customerPhone, createWorkspace, inboundWebhook } from '../harness/fixtures.ts';
import { describeFailures, openLoop, warmUp, type LoadResult } from '../harness/http-load.ts';
import { freePort } from '../harness/processes.ts';
import { size, type Row } from '../harness/row.ts';
import { percentile } from '../harness/stats.ts';
import { result } from '../harness/table.ts';

const RATE = 500;
const WARM_UP = 100;

export const webhookAck: Row = {
  id: 'webhook-ack',
  run: async (stack) => {
    const count = RATE * size(stack, 10, 1);
    const maxMs = (count / RATE) * 1000 + 30_000;
    const { web, worker } = await stack.startWebAndWorker('ack');
    let parley: LoadResult;
    try {
      const workspace = await createWorkspace(stack, web);
      const channel = workspace.channels[0]!;
      // Signing happens before the clock starts: the bench must not slow its own sending.
      const requests = Array.from({ length: count }, (_, i) => inboundWebhook(channel, customerPhone(i % 50), `ack ${i}`));
      await warmUp(web.url, WARM_UP, (i) => inboundWebhook(channel, customerPhone(i % 50), `warm-up ${i}`));
      parley = await openLoop(web.url, { rate: RATE, count, maxMs, make: (i) => requests[i]! });
    } finally {
      await worker.stop();
      await web.child.stop();
    }

    const port = await freePort();
    const bare = await stack.startBaseline('ack-bare-http', 'bare-http.ts', { PORT: String(port) });
    let baseline: LoadResult;
    try {
      const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
      const make = () => ({ method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body });
      await warmUp(`http://127.0.0.1:${port}`, WARM_UP, make);
      baseline = await openLoop(`http://127.0.0.1:${port}`, { rate: RATE, count, maxMs, make });
    } finally {
      await bare.stop();
    }

    const rate = (r: LoadResult) => r.ok / (r.elapsedMs / 1000);
    const label = 'bare node:http';
    const note = [`${count} signed webhooks at ${RATE}/s; ${parley.ok} acknowledged`, describeFailures(parley.failures)].filter(Boolean).join('; ');
    const enforce = !stack.quick;
    return [
      result(
        {
          name: `webhook ack @${RATE}/s: achieved rate`,
          figure: rate(parley),
          unit: 'req/s',
          baseline: rate(baseline),
          baselineLabel: label,
          goal: { text: `≥ ${RATE * 0.99} req/s, none lost`, met: (r) => r.figure >= RATE * 0.99 && parley.ok === count },
          note,
        },
        enforce,
      ),
      result(
        {
          name: 'webhook ack: p50',
          figure: percentile(parley.latencies, 50),
          unit: 'ms',
          baseline: percentile(baseline.latencies, 50),
          baselineLabel: label,
          goal: { text: '≤ 5 ms', met: (r) => r.figure <= 5 },
        },
        enforce,
      ),
      result(
        {
          name: 'webhook ack: p99',
          figure: percentile(parley.latencies, 99),
          unit: 'ms',
          baseline: percentile(baseline.latencies, 99),
          baselineLabel: label,
          goal: { text: '≤ 25 ms', met: (r) => r.figure <= 25 },
        },
        enforce,
      ),
    ];
  },
};
