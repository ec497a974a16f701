/**
 * Replies to one conversation arrive in order: an agent's quick replies to one WhatsApp customer
 * (each answered 200 before the next is sent) through `parley web` and a `parley worker`, the
 * fake Graph API answering each send after a random 0–40 ms. Counted at the platform: replies
 * that arrived after a later one (goal 0), and replies sent twice. No baseline: the per-reply
 * jobs before the delivery drains scrambled about one reply in five here.
 */
import { api, createWorkspace, seedConversations } from '../harness/fixtures.ts';
import { size, type Row } from '../harness/row.ts';
import { waitUntil } from '../harness/stats.ts';
import { result } from '../harness/table.ts';

export const replyOrder: Row = {
  id: 'reply-order',
  run: async (stack) => {
    const replies = size(stack, 100, 30);
    const { web, worker } = await stack.startWebAndWorker('order');
    const texts = Array.from({ length: replies }, (_, i) => `In order ${i + 1}`);
    let received: string[];
    try {
      const workspace = await createWorkspace(stack, web);
      const channel = workspace.channels[0]!;
      const [conversationId] = await seedConversations(stack, web, workspace, channel, 1, 0);
      stack.meta.setLatency(() => Math.floor(Math.random() * 41));
      const sentTo = () => stack.meta.whatsappSent.filter((m) => m.phoneNumberId === channel.phoneNumberId).map((m) => m.body.text?.body as string);
      for (const content of texts) await api(web, 'POST', `/api/v1/conversations/${conversationId}/messages`, { token: workspace.token, body: { content } });
      received = await waitUntil(
        async () => {
          const all = sentTo();
          return texts.every((text) => all.includes(text)) ? all : null;
        },
        120_000,
        `${replies} replies at the platform`,
        20,
      );
    } finally {
      stack.meta.setLatency(0);
      await worker.stop();
      await web.child.stop();
    }
    const order = [...new Set(received)].map((text) => texts.indexOf(text));
    let highest = -1;
    let late = 0;
    for (const i of order) {
      if (i < highest) late += 1;
      highest = Math.max(highest, i);
    }
    const twice = received.length - new Set(received).size;
    return [
      result(
        {
          name: 'replies to one conversation: arrived out of order',
          figure: late,
          unit: 'replies',
          goal: { text: '0', met: (r) => r.figure === 0 },
          note: `${replies} sequential replies, platform 0–40 ms; sent twice: ${twice}`,
        },
        true,
      ),
    ];
  },
};
