/**
 * Inbound drain: 1,000 webhooks on one WhatsApp channel from 50 customers, each customer's 20
 * messages sent one after another (so their arrival order is defined), the 50 customers at
 * once. Measures from the first send until every message is stored (polled in SQL every 25 ms),
 * then reads every conversation through the API and checks each customer's messages are in
 * arrival order. Baseline: the same 1,000 webhooks spread over 10 channels of one business
 * (5 customers each), same processes: what one channel's ordering costs against the same work
 * with no channel to serialize on. Goal: ≥ 500 msg/s on one channel, every customer in order.
 */
import http from 'node:http';
import { api, createWorkspace, customerPhone, inboundWebhook, type Channel, type Workspace } from '../harness/fixtures.ts';
import { send } from '../harness/http-load.ts';
import { size, type Row } from '../harness/row.ts';
import type { Stack, Web } from '../harness/stack.ts';
import { waitUntil } from '../harness/stats.ts';
import { result } from '../harness/table.ts';

/** Customers writing at once, and messages each writes in turn. */
type Shape = { customers: number; perCustomer: number };

type Drain = { seconds: number; inOrder: number; visible: number; rejected: number };

/** Customer `c` of `channels` writes `perCustomer` messages in turn; all customers at once. */
async function drain(stack: Stack, web: Web, workspace: Workspace, shape: Shape, firstCustomer: number): Promise<Drain> {
  const { customers, perCustomer } = shape;
  const channels = workspace.channels;
  const total = customers * perCustomer;
  const origin = new URL(web.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: customers });
  const channelOf = (c: number): Channel => channels[c % channels.length]!;
  const count = async () =>
    (
      await stack.pool.query<{ n: number }>(`select count(*)::int as n from messages where business_id = $1 and sender_type = 'customer'`, [
        workspace.businessId,
      ])
    ).rows[0]!.n;
  const before = await count();
  let rejected = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: customers }, async (_, c) => {
      for (let k = 0; k < perCustomer; k++) {
        const status = await send(agent, origin, inboundWebhook(channelOf(c), customerPhone(firstCustomer + c), `m${k}`));
        if (status !== 200) rejected += 1;
      }
    }),
  );
  agent.destroy();
  await waitUntil(async () => (await count()) - before >= total - rejected, 900_000, `${total} inbound messages`, 25);
  const seconds = (performance.now() - started) / 1000;
  const order = await checkOrder(web, workspace, shape, firstCustomer);
  return { seconds, rejected, ...order };
}

/** Reads each customer's conversation through the API: messages visible, and in arrival order? */
async function checkOrder(
  web: Web,
  workspace: Workspace,
  { customers, perCustomer }: Shape,
  firstCustomer: number,
): Promise<{ inOrder: number; visible: number }> {
  const conversations: any[] = await api(web, 'GET', '/api/v1/conversations?channel_type=whatsapp&limit=200', { token: workspace.token });
  const expected = Array.from({ length: perCustomer }, (_, k) => `m${k}`).join(' ');
  let inOrder = 0;
  let visible = 0;
  for (let c = 0; c < customers; c++) {
    const phone = `+${customerPhone(firstCustomer + c)}`;
    const conversation = conversations.find((x) => x.customer?.phone === phone);
    if (!conversation) continue;
    const messages: any[] = await api(web, 'GET', `/api/v1/conversations/${conversation.id}/messages?limit=200`, { token: workspace.token });
    const received = messages.filter((m) => m.sender_type === 'customer').map((m) => m.content);
    visible += received.length;
    if (received.join(' ') === expected) inOrder += 1;
  }
  return { inOrder, visible };
}

export const inboundDrain: Row = {
  id: 'inbound-drain',
  run: async (stack) => {
    const shape: Shape = { customers: size(stack, 50, 20), perCustomer: size(stack, 20, 2) };
    const total = shape.customers * shape.perCustomer;
    const { web, worker } = await stack.startWebAndWorker('drain');
    let one: Drain;
    let spread: Drain;
    try {
      const single = await createWorkspace(stack, web, { channels: 1 });
      const many = await createWorkspace(stack, web, { channels: 10 });
      one = await drain(stack, web, single, shape, 0);
      spread = await drain(stack, web, many, shape, 1000);
    } finally {
      await worker.stop();
      await web.child.stop();
    }
    const enforce = !stack.quick;
    const label = '10 channels';
    const note = `${total} webhooks, ${shape.customers} customers; visible through the API: ${one.visible} (10 channels: ${spread.visible}); webhooks refused: ${one.rejected} (${spread.rejected})`;
    return [
      result(
        {
          name: `inbound drain, ${total} on 1 channel: rate`,
          figure: total / one.seconds,
          unit: 'msg/s',
          baseline: total / spread.seconds,
          baselineLabel: label,
          goal: { text: '≥ 500 msg/s', met: (r) => r.figure >= 500 },
          note,
        },
        enforce,
      ),
      result(
        {
          name: 'inbound drain: time to last message',
          figure: one.seconds * 1000,
          unit: 'ms',
          baseline: spread.seconds * 1000,
          baselineLabel: label,
          goal: { text: `≤ ${(total / 500) * 1000} ms (500 msg/s)`, met: (r) => r.figure <= (total / 500) * 1000 },
        },
        enforce,
      ),
      result(
        {
          name: 'inbound drain: customers in arrival order',
          figure: one.inOrder,
          unit: `of ${shape.customers}`,
          baseline: spread.inOrder,
          baselineLabel: label,
          goal: { text: `all ${shape.customers}, all visible`, met: (r) => r.figure === shape.customers && one.visible === total },
        },
        enforce,
      ),
    ];
  },
};
