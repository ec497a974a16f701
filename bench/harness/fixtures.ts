/**
 * Workspaces and traffic as users make them, through Parley's real API: an owner registers,
 * creates a business (set to Pro by SQL: plans change only through Stripe), connects a
 * WhatsApp channel whose number the fake Graph API knows, and customers write in through
 * webhooks signed as Meta signs them.
 */
import { randomBytes } from 'node:crypto';
import { metaSignature } from '../../connectors/meta.ts';
import { whatsappTextPayload } from '../../test/fakes/meta.ts';
import { REQUEST_TIMEOUT_MS, type Request } from './http-load.ts';
import type { Stack, Web } from './stack.ts';
import { waitUntil } from './stats.ts';

export type Channel = { id: string; phoneNumberId: string; appSecret: string };
export type Workspace = { token: string; userId: string; businessId: string; channels: Channel[] };

/** One JSON request to Parley; throws on a non-2xx answer (setup must not half-succeed). */
export async function api<T = any>(web: Web, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`${web.url}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A WhatsApp channel of the business, its number registered with the fake Graph API. */
export async function addWhatsAppChannel(stack: Stack, web: Web, token: string): Promise<Channel> {
  const phoneNumberId = String(100_000_000_000 + Math.floor(Math.random() * 1e11));
  const accessToken = `EAAG${randomBytes(12).toString('hex')}`;
  const appSecret = randomBytes(16).toString('hex');
  stack.meta.addWhatsAppNumber(phoneNumberId, accessToken);
  const channel = await api(web, 'POST', '/api/v1/channels/', {
    token,
    body: {
      type: 'whatsapp',
      config: { phone_number_id: phoneNumberId, access_token: accessToken, app_secret: appSecret, verify_token: randomBytes(8).toString('hex') },
    },
  });
  return { id: channel.id, phoneNumberId, appSecret };
}

/** A Pro business with `channels` WhatsApp channels, owned by a fresh account. */
export async function createWorkspace(stack: Stack, web: Web, options: { channels?: number } = {}): Promise<Workspace> {
  const email = `bench-${randomBytes(6).toString('hex')}@bench.test`;
  const registered = await api(web, 'POST', '/api/v1/auth/register', { body: { email, full_name: 'Bench Owner', password: randomBytes(12).toString('hex') } });
  const token: string = registered.access_token;
  const me = await api(web, 'GET', '/api/v1/auth/me', { token });
  const business = await api(web, 'POST', '/api/v1/business', { token, body: { name: 'Bench Co' } });
  await stack.pool.query(`update businesses set plan = 'Pro' where id = $1`, [business.id]);
  const channels: Channel[] = [];
  for (let i = 0; i < (options.channels ?? 1); i++) channels.push(await addWhatsAppChannel(stack, web, token));
  return { token, userId: me.user.id, businessId: business.id, channels };
}

/** A customer's phone number (WhatsApp id) for customer number `n`. */
export const customerPhone = (n: number) => String(15_550_000_000 + n);

/** The signed POST Meta would send for one text message from `from` to the channel. */
export function inboundWebhook(channel: Channel, from: string, text: string): Request {
  const payload = whatsappTextPayload({
    phoneNumberId: channel.phoneNumberId,
    from,
    id: `wamid.bench${randomBytes(10).toString('hex')}`,
    text,
    name: `Customer ${from}`,
    timestamp: Math.floor(Date.now() / 1000),
  });
  const body = Buffer.from(JSON.stringify(payload));
  return {
    method: 'POST',
    path: '/api/v1/webhooks/whatsapp',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(channel.appSecret, body) },
    body,
  };
}

/** Sends one inbound webhook; throws unless Parley acknowledged it. */
export async function postInbound(web: Web, request: Request): Promise<void> {
  const res = await fetch(`${web.url}${request.path}`, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`webhook: ${res.status} ${await res.text()}`);
}

/**
 * `count` customers each write once on the channel; resolves with their conversation ids once a
 * running worker has made them (a reply needs a customer who wrote in).
 */
export async function seedConversations(stack: Stack, web: Web, workspace: Workspace, channel: Channel, count: number, firstCustomer = 0): Promise<string[]> {
  for (let i = 0; i < count; i++) await postInbound(web, inboundWebhook(channel, customerPhone(firstCustomer + i), 'Hello'));
  return waitUntil(
    async () => {
      const { rows } = await stack.pool.query<{ id: string }>(`select id from conversations where channel_id = $1 order by created_at`, [channel.id]);
      return rows.length >= count ? rows.map((r) => r.id) : null;
    },
    120_000,
    `${count} conversations`,
  );
}
