/**
 * A fake Meta Graph API on 127.0.0.1 serving both WhatsApp Cloud API (`graphUrl`, like
 * https://graph.facebook.com/v23.0) and Instagram messaging (`instagramUrl`, like
 * https://graph.instagram.com/v23.0). It checks requests as Graph does: `Authorization: Bearer`
 * with the token of the phone number or account in the path (missing → 400 code 104, wrong →
 * 401 code 190), a JSON body, the required fields and length limits, and answers Graph-shaped
 * errors `{error: {message, type, code, error_subcode?, fbtrace_id}}`. `GET {graph}/{phone_number_id}` and
 * `GET {instagram}/{account_id}` read the number or account with its token (channel registration).
 *
 *   const fake = await startFakeMeta();
 *   fake.addWhatsAppNumber('1066', 'wa-token');
 *   whatsapp.send(config, message, { baseUrl: fake.graphUrl, ... });
 *   fake.failNext(1, { status: 400, code: 131047, message: 'Re-engagement message' });
 *
 * Builders for webhook bodies and `signedMetaWebhook` (X-Hub-Signature-256 over the exact bytes)
 * let webhook tests post what Meta would.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { startHttpFake, type FakeFailure, type Latency, type RecordedRequest } from './http-fake.ts';
import type { WebhookRequest } from '../../connectors/types.ts';

export const GRAPH_VERSION = 'v23.0';

export type FakeWhatsAppMessage = { phoneNumberId: string; id: string; to: string; type: string; body: Record<string, any> };
export type FakeTemplate = { name: string; language: string; status: 'APPROVED' | 'PENDING' | 'REJECTED'; category?: string; body: string };
export type FakeInstagramMessage = { accountId: string; id: string; recipientId: string; message: Record<string, any> };

export type GraphFailure = FakeFailure & {
  /** Graph error code (e.g. 190, 131047, 4); defaults by status. */
  code?: number;
  subcode?: number;
  message?: string;
  details?: string;
  type?: string;
  retryAfter?: number;
};

export type FakeMeta = {
  origin: string;
  /** META_GRAPH_URL for WhatsApp. */
  graphUrl: string;
  /** INSTAGRAM_GRAPH_URL. */
  instagramUrl: string;
  requests: (RecordedRequest & { product: 'whatsapp' | 'instagram' | 'media' | 'unknown' })[];
  whatsappSent: FakeWhatsAppMessage[];
  instagramSent: FakeInstagramMessage[];
  addWhatsAppNumber: (phoneNumberId: string, accessToken: string) => void;
  addInstagramAccount: (accountId: string, accessToken: string) => void;
  /** An Instagram user who wrote to an account: `GET {instagram}/{igsid}?fields=name,username` answers their profile to that token. */
  addInstagramUser: (igsid: string, accessToken: string, profile: { name?: string | null; username?: string | null }) => void;
  /** Serves a WhatsApp media object: `GET {graph}/{mediaId}` → `{url, mime_type, …}`, then the bytes at that url (bearer required). */
  addMedia: (mediaId: string, accessToken: string, media: { mimeType: string; bytes: Buffer }) => void;
  /**
   * An Instagram attachment as the webhook links it: a signed CDN URL (returned) that serves the
   * bytes without a token and 403s when the signature is wrong or missing, as lookaside.fbsbx.com does.
   */
  addInstagramAsset: (media: { mimeType: string; bytes: Buffer }) => string;
  /**
   * Message templates of a WhatsApp Business Account: `GET {graph}/{wabaId}/message_templates`
   * lists them (bearer = `accessToken`, paged by `limit`), and a `type: template` send must name
   * an APPROVED one by name and language with as many body parameters as its {{n}} placeholders
   * (else 132001 / 132000, as Meta answers).
   */
  addTemplates: (wabaId: string, accessToken: string, templates: FakeTemplate[]) => void;
  /** The next `count` Graph calls (that `match`, when given) fail with a Graph error body (or `body` when given). */
  failNext: (count: number, failure: GraphFailure, match?: (request: RecordedRequest) => boolean) => void;
  /** Every answer waits first (a slow platform): ms, or per request (http-fake.ts Latency). */
  setLatency: (latency: Latency) => void;
  /** The next WhatsApp send is answered with the message id of the one before it (a platform id that is taken already). */
  repeatMessageIdOnce: () => void;
  close: () => Promise<void>;
};

const DEFAULT_CODE_BY_STATUS: Record<number, number> = { 400: 100, 401: 190, 403: 10, 404: 803, 429: 4, 500: 1, 503: 2 };

export function graphError(code: number, message: string, options: { subcode?: number; type?: string; details?: string } = {}) {
  return {
    error: {
      message,
      type: options.type ?? (code === 190 || code === 104 ? 'OAuthException' : 'GraphMethodException'),
      code,
      ...(options.subcode !== undefined ? { error_subcode: options.subcode } : {}),
      ...(options.details !== undefined ? { error_data: { messaging_product: 'whatsapp', details: options.details } } : {}),
      fbtrace_id: `A${randomBytes(8).toString('hex')}`,
    },
  };
}

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

const WHATSAPP_MEDIA_TYPES = new Set(['image', 'document', 'audio', 'video', 'sticker']);

export async function startFakeMeta(): Promise<FakeMeta> {
  const numbers = new Map<string, string>();
  const accounts = new Map<string, string>();
  const igUsers = new Map<string, { token: string; name: string | null; username: string | null }>();
  const media = new Map<string, { token: string; mimeType: string; bytes: Buffer }>();
  const assets = new Map<string, { signature: string; mimeType: string; bytes: Buffer }>();
  const wabas = new Map<string, { token: string; templates: FakeTemplate[] }>();
  const allTemplates = () => [...wabas.values()].flatMap((w) => w.templates);
  const whatsappSent: FakeWhatsAppMessage[] = [];
  const instagramSent: FakeInstagramMessage[] = [];
  const requests: FakeMeta['requests'] = [];
  let counter = 0;
  let repeatId = false;
  let origin = '';

  const bearerOf = (request: RecordedRequest) => /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];

  const server = await startHttpFake(
    async (request, respond) => {
      const graph = new RegExp(`^/graph/${GRAPH_VERSION}/([^/]+)(?:/([^/]+))?$`).exec(request.path);
      const insta = new RegExp(`^/instagram/${GRAPH_VERSION}/([^/]+)(?:/([^/]+))?$`).exec(request.path);
      const download = /^\/media-download\/([^/]+)$/.exec(request.path);
      const cdn = request.path === '/ig_messaging_cdn/';
      const product = graph ? (graph[2] ? 'whatsapp' : 'media') : insta ? 'instagram' : download || cdn ? 'media' : 'unknown';
      requests.push({ ...request, product });

      if (cdn) {
        const query = request.query;
        const asset = assets.get(query.get('asset_id') ?? '');
        if (!asset) return respond(404, 'Not found');
        if (query.get('signature') !== asset.signature) return respond(403, 'URL signature mismatch');
        return respond(200, asset.bytes, { 'content-type': asset.mimeType });
      }

      const bearer = bearerOf(request);
      const authFailure = (expected: string | undefined): boolean => {
        if (!bearer) {
          respond(400, graphError(104, 'An access token is required to request this resource.'));
          return true;
        }
        if (expected === undefined || bearer !== expected) {
          respond(401, graphError(190, 'Invalid OAuth access token - Cannot parse access token'));
          return true;
        }
        return false;
      };

      if (download) {
        const item = media.get(download[1]);
        if (!item) return respond(404, graphError(803, 'Media not found'));
        if (authFailure(item.token)) return;
        return respond(200, item.bytes, { 'content-type': item.mimeType });
      }

      const match = graph ?? insta;
      if (!match) return respond(404, graphError(803, `Unknown path components: ${request.path}`));
      const [, objectId, edge] = match;

      // Reading the phone number or the Instagram account itself, as a channel's registration does.
      if (graph && !edge && request.method === 'GET' && numbers.has(objectId)) {
        if (authFailure(numbers.get(objectId))) return;
        return respond(200, { verified_name: 'Acme Support', display_phone_number: '+1 555-078-3881', quality_rating: 'GREEN', id: objectId });
      }
      // The User Profile API: an Instagram user who wrote to the account, by their IGSID, with the
      // fields asked for (a null one is left out, as Graph does); one who never wrote: no consent.
      if (insta && !edge && request.method === 'GET' && !accounts.has(objectId) && /^\d+$/.test(objectId)) {
        const user = igUsers.get(objectId);
        if (!user) return respond(400, graphError(230, 'User consent is required to access user profile'));
        if (authFailure(user.token)) return;
        const fields = (request.query.get('fields') ?? '').split(',').filter(Boolean);
        const answer: Record<string, string> = { id: objectId };
        for (const field of fields) {
          const value = field === 'name' ? user.name : field === 'username' ? user.username : null;
          if (value !== null) answer[field] = value;
        }
        return respond(200, answer);
      }
      if (insta && !edge && request.method === 'GET' && accounts.has(objectId)) {
        if (authFailure(accounts.get(objectId))) return;
        return respond(200, { username: 'acme.support', id: objectId });
      }

      if (graph && edge === 'message_templates' && request.method === 'GET') {
        const waba = wabas.get(objectId);
        if (!waba) return respond(400, graphError(100, `Unsupported get request. Object with ID '${objectId}' does not exist`, { subcode: 33 }));
        if (authFailure(waba.token)) return;
        const limit = Math.max(1, Math.min(Number(request.query.get('limit') ?? 25), 100));
        const offset = Number(request.query.get('after') ?? 0);
        const page = waba.templates.slice(offset, offset + limit).map((t, i) => ({
          name: t.name,
          language: t.language,
          status: t.status,
          category: t.category ?? 'UTILITY',
          id: String(9000 + offset + i),
          components: [{ type: 'BODY', text: t.body }],
        }));
        const more = offset + limit < waba.templates.length;
        const next = new URL(`${origin}${request.path}`);
        next.searchParams.set('limit', String(limit));
        next.searchParams.set('after', String(offset + limit));
        return respond(200, {
          data: page,
          paging: { cursors: { before: String(offset), after: String(offset + limit) }, ...(more ? { next: next.toString() } : {}) },
        });
      }

      if (graph && !edge && request.method === 'GET') {
        const item = media.get(objectId);
        if (!item) return respond(400, graphError(100, `Unsupported get request. Object with ID '${objectId}' does not exist`, { subcode: 33 }));
        if (authFailure(item.token)) return;
        return respond(200, {
          messaging_product: 'whatsapp',
          url: `${origin}/media-download/${objectId}`,
          mime_type: item.mimeType,
          sha256: createHash('sha256').update(item.bytes).digest('hex'),
          file_size: item.bytes.length,
          id: objectId,
        });
      }

      if (edge !== 'messages' || request.method !== 'POST') {
        return respond(400, graphError(100, `Unsupported ${request.method.toLowerCase()} request.`, { subcode: 33 }));
      }
      const expectedToken = graph ? numbers.get(objectId) : accounts.get(objectId);
      if (expectedToken === undefined && bearer) {
        return respond(
          400,
          graphError(
            100,
            `Unsupported post request. Object with ID '${objectId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
            { subcode: 33 },
          ),
        );
      }
      if (authFailure(expectedToken)) return;
      if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
        return respond(400, graphError(100, '(#100) The fake Graph API only accepts JSON bodies'));
      }
      const body = request.json;
      if (!body || typeof body !== 'object') return respond(400, graphError(100, '(#100) Invalid JSON body'));

      if (graph) {
        if (body.messaging_product !== 'whatsapp') return respond(400, graphError(100, '(#100) The parameter messaging_product is required.'));
        if (typeof body.to !== 'string' || body.to === '') return respond(400, graphError(100, '(#100) The parameter to is required.'));
        if (body.recipient_type !== undefined && body.recipient_type !== 'individual')
          return respond(400, graphError(100, '(#100) Invalid parameter recipient_type'));
        const type = body.type ?? 'text';
        if (type === 'text') {
          const text = body.text?.body;
          if (typeof text !== 'string' || text === '') return respond(400, graphError(100, "(#100) The parameter text['body'] is required."));
          if (text.length > 4096) return respond(400, graphError(100, "(#100) Param text['body'] must be at most 4096 characters long."));
        } else if (WHATSAPP_MEDIA_TYPES.has(type)) {
          const object = body[type];
          if (!object || (!isUrl(object.link) && typeof object.id !== 'string')) {
            return respond(400, graphError(100, `(#100) Param ${type}['link'] is not a valid URI.`));
          }
          if (typeof object.caption === 'string' && object.caption.length > 1024)
            return respond(400, graphError(100, `(#100) Param ${type}['caption'] must be at most 1024 characters long.`));
          if (object.caption !== undefined && (type === 'audio' || type === 'sticker'))
            return respond(400, graphError(100, `(#100) Param ${type}['caption'] is not allowed`));
        } else if (type === 'template') {
          const template = body.template;
          const name = template?.name;
          const code = template?.language?.code;
          if (typeof name !== 'string' || typeof code !== 'string')
            return respond(400, graphError(100, "(#100) The parameter template['name'] and template['language']['code'] are required."));
          const known = allTemplates().find((t) => t.name === name && t.language === code && t.status === 'APPROVED');
          if (!known)
            return respond(
              404,
              graphError(132001, 'Template name does not exist in the translation', { details: `template name (${name}) does not exist in ${code}` }),
            );
          const bodyComponent = (template.components ?? []).find((c: any) => c?.type === 'body');
          const given = (bodyComponent?.parameters ?? []).filter((p: any) => p?.type === 'text' && typeof p.text === 'string' && p.text !== '').length;
          const expected = new Set([...known.body.matchAll(/\{\{(\d+)\}\}/g)].map((m) => m[1])).size;
          if (given !== expected)
            return respond(
              400,
              graphError(132000, 'Number of parameters does not match the expected number of params', {
                details: `body: number of localizable_params (${given}) does not match the expected number of params (${expected})`,
              }),
            );
        } else {
          return respond(400, graphError(100, `(#100) Param type must be one of {TEXT, IMAGE, DOCUMENT, AUDIO, VIDEO, STICKER, …} - got "${type}".`));
        }
        counter += 1;
        const previous = whatsappSent.at(-1)?.id;
        const id = repeatId && previous ? previous : `wamid.HBgL${String(counter).padStart(6, '0')}${randomBytes(6).toString('hex').toUpperCase()}`;
        repeatId = false;
        whatsappSent.push({ phoneNumberId: objectId, id, to: body.to, type, body });
        return respond(200, { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] });
      }

      const recipientId = body.recipient?.id;
      if (typeof recipientId !== 'string' || recipientId === '') return respond(400, graphError(100, '(#100) The parameter recipient is required'));
      const message = body.message;
      if (!message || typeof message !== 'object') return respond(400, graphError(100, '(#100) The parameter message is required'));
      if (message.text !== undefined) {
        if (typeof message.text !== 'string' || message.text === '')
          return respond(400, graphError(100, '(#100) Param message[text] must be a non-empty UTF-8 encoded string'));
        if (Buffer.byteLength(message.text, 'utf8') > 1000)
          return respond(400, graphError(100, '(#100) Length of param message[text] must be less than or equal to 1000'));
      } else if (message.attachment !== undefined) {
        if (!['image', 'video', 'audio', 'file'].includes(message.attachment?.type) || !isUrl(message.attachment?.payload?.url)) {
          return respond(400, graphError(100, '(#100) Invalid attachment'));
        }
      } else {
        return respond(400, graphError(100, '(#100) Must send either message text or attachment'));
      }
      counter += 1;
      const id = `aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQx${counter}`;
      instagramSent.push({ accountId: objectId, id, recipientId, message });
      return respond(200, { recipient_id: recipientId, message_id: id });
    },
    (failure) => {
      const g = failure as GraphFailure;
      return graphError(g.code ?? DEFAULT_CODE_BY_STATUS[g.status] ?? 1, g.message ?? `Fake failure ${g.status}`, {
        subcode: g.subcode,
        type: g.type,
        details: g.details,
      });
    },
  );
  origin = server.origin;

  return {
    origin,
    graphUrl: `${origin}/graph/${GRAPH_VERSION}`,
    instagramUrl: `${origin}/instagram/${GRAPH_VERSION}`,
    requests,
    whatsappSent,
    instagramSent,
    addWhatsAppNumber: (phoneNumberId, accessToken) => {
      numbers.set(phoneNumberId, accessToken);
    },
    addInstagramAccount: (accountId, accessToken) => {
      accounts.set(accountId, accessToken);
    },
    addInstagramUser: (igsid, accessToken, profile) => {
      igUsers.set(igsid, { token: accessToken, name: profile.name ?? null, username: profile.username ?? null });
    },
    addTemplates: (wabaId, accessToken, templates) => {
      wabas.set(wabaId, { token: accessToken, templates: [...(wabas.get(wabaId)?.templates ?? []), ...templates] });
    },
    addInstagramAsset: (item) => {
      const id = String(Date.now()) + randomBytes(4).readUInt32BE(0);
      const signature = randomBytes(16).toString('base64url');
      assets.set(id, { signature, ...item });
      return `${origin}/ig_messaging_cdn/?asset_id=${id}&signature=${signature}`;
    },
    addMedia: (mediaId, accessToken, item) => {
      media.set(mediaId, { token: accessToken, ...item });
    },
    setLatency: server.setLatency,
    repeatMessageIdOnce: () => {
      repeatId = true;
    },
    failNext: (count, failure, match) => {
      const headers = { ...(failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {}), ...failure.headers };
      // The failure body is built per request by the fallback above; keep the Graph fields on the failure itself.
      server.failNext(count, { ...failure, headers }, match);
    },
    close: server.close,
  };
}

/** The headers Meta sends with a webhook POST: JSON and `X-Hub-Signature-256` over the exact bytes. */
export function signedMetaWebhook(payload: unknown, appSecret: string | undefined, url = 'https://parley.example/api/v1/webhooks/whatsapp'): WebhookRequest {
  const rawBody = Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload), 'utf8');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (appSecret !== undefined) headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
  return { url, headers, rawBody };
}

/** POSTs a signed webhook to a running route as Meta does. */
export function postMetaWebhook(url: string, payload: unknown, appSecret: string | undefined): Promise<Response> {
  const request = signedMetaWebhook(payload, appSecret, url);
  return fetch(url, { method: 'POST', headers: request.headers as Record<string, string>, body: new Uint8Array(request.rawBody) });
}

/** A WhatsApp webhook body with one inbound text message. */
export function whatsappTextPayload(options: {
  phoneNumberId: string;
  from: string;
  id: string;
  text: string;
  name?: string;
  timestamp?: number;
  wabaId?: string;
}) {
  return whatsappPayload(
    options.phoneNumberId,
    {
      contacts: [{ profile: { name: options.name ?? 'Ada Lovelace' }, wa_id: options.from }],
      messages: [{ from: options.from, id: options.id, timestamp: String(options.timestamp ?? 1767225600), type: 'text', text: { body: options.text } }],
    },
    options.wabaId,
  );
}

/** A WhatsApp webhook body with one delivery receipt for a message Parley sent. */
export function whatsappStatusPayload(options: {
  phoneNumberId: string;
  id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  recipientId: string;
  timestamp?: number;
  error?: { code: number; title: string; details?: string };
}) {
  return whatsappPayload(options.phoneNumberId, {
    statuses: [
      {
        id: options.id,
        status: options.status,
        timestamp: String(options.timestamp ?? 1767225660),
        recipient_id: options.recipientId,
        ...(options.error
          ? {
              errors: [
                {
                  code: options.error.code,
                  title: options.error.title,
                  message: options.error.title,
                  error_data: { details: options.error.details ?? options.error.title },
                },
              ],
            }
          : {}),
      },
    ],
  });
}

function whatsappPayload(phoneNumberId: string, value: Record<string, unknown>, wabaId = '102290129340398') {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: wabaId,
        changes: [
          {
            field: 'messages',
            value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId }, ...value },
          },
        ],
      },
    ],
  };
}

/** An Instagram webhook body with one inbound message (text and/or attachments). */
export function instagramMessagePayload(options: {
  accountId: string;
  senderId: string;
  mid: string;
  text?: string;
  attachments?: { type: string; url: string }[];
  timestamp?: number;
  isEcho?: boolean;
}) {
  const time = options.timestamp ?? 1767225600123;
  return {
    object: 'instagram',
    entry: [
      {
        id: options.accountId,
        time,
        messaging: [
          {
            sender: { id: options.isEcho ? options.accountId : options.senderId },
            recipient: { id: options.isEcho ? options.senderId : options.accountId },
            timestamp: time,
            message: {
              mid: options.mid,
              ...(options.text !== undefined ? { text: options.text } : {}),
              ...(options.attachments ? { attachments: options.attachments.map((a) => ({ type: a.type, payload: { url: a.url } })) } : {}),
              ...(options.isEcho ? { is_echo: true } : {}),
            },
          },
        ],
      },
    ],
  };
}
