/**
 * A Pro workspace with a WhatsApp channel on the fake Graph API and one customer conversation
 * (the customer wrote in; an in-process worker stored it), ready for agent replies: the start
 * of the tests about delivering replies through crashes and outages.
 */
import { startTestApp, type TestApp } from './app.ts';
import { createWorkspace, type Workspace } from './fixtures.ts';
import { inboxOf, type Inbox } from './inbox.ts';
import { query, startTestWorker, waitFor } from './worker.ts';
import { startFakeMeta, whatsappTextPayload, type FakeMeta } from '../fakes/meta.ts';

export type WhatsAppConversation = {
  app: TestApp;
  fake: FakeMeta;
  owner: Workspace;
  inbox: Inbox;
  conversationId: string;
  customerPhone: string;
  close: () => Promise<void>;
};

/** A customer's WhatsApp text as Meta posts it to the webhook; throws unless it was acknowledged (200). */
export async function customerTexts(app: TestApp, message: { phoneNumberId: string; from: string; id: string; text: string }): Promise<void> {
  const res = await fetch(`${app.url}/api/v1/webhooks/whatsapp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(whatsappTextPayload(message)),
  });
  if (res.status !== 200) throw new Error(await res.text());
}

export async function whatsappConversation(env: Record<string, string> = {}): Promise<WhatsAppConversation> {
  const fake = await startFakeMeta();
  fake.addWhatsAppNumber('1066', 'wa-token');
  const app = await startTestApp({ env: { META_GRAPH_URL: fake.graphUrl, ...env } });
  const owner = await createWorkspace(app, { plan: 'Pro' });
  const customerPhone = '15550001111';
  const channel = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'whatsapp', config: { phone_number_id: '1066', access_token: 'wa-token' } },
  });
  if (channel.status !== 200) throw new Error(channel.text);
  await customerTexts(app, { phoneNumberId: '1066', from: customerPhone, id: 'wamid.first', text: 'Hello?' });
  const worker = await startTestWorker(app, { only: ['process_inbound', 'register_channel'] });
  const [conversation] = await waitFor(async () => {
    const rows = await query(app, 'select id from conversations where channel_type = $1', ['whatsapp']);
    return rows.length ? rows : null;
  });
  await worker.stop();
  return {
    app,
    fake,
    owner,
    inbox: inboxOf(app, owner.token),
    conversationId: conversation.id,
    customerPhone,
    close: async () => {
      await app.close();
      await fake.close();
    },
  };
}
