/**
 * A fake X API v2 on 127.0.0.1 for direct messages. Like X it refuses a request whose OAuth 1.0a
 * header is missing, names another consumer key or token, or whose HMAC-SHA1 signature does not
 * match (so the consumer and token secrets are checked too).
 *
 *   const fake = await startFakeX({ credentials, user: { id: '1000', name: 'Acme', username: 'acme' } });
 *   connector.send(config, message, { baseUrl: fake.url, ... });
 *   fake.dms[0].participantId; fake.failNext(1, 429, body, { 'x-rate-limit-reset': '…' });
 *   const url = fake.addDmMedia('photo.jpg', bytes, 'image/jpeg'); // served like ton.twitter.com: OAuth-signed GET only
 *
 * `signXWebhook` signs an Account Activity payload the way X does.
 */
import { createHmac, randomInt } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readAll, sendJson as json } from './http-fake.ts';

export type FakeXCredentials = { api_key: string; api_secret: string; access_token: string; access_token_secret: string };
export type FakeXDm = { participantId: string; text: string; dmEventId: string; dmConversationId: string; oauth: Record<string, string> };
type Failure = { status: number; body: unknown; headers: Record<string, string> };

export type FakeX = {
  url: string;
  dms: FakeXDm[];
  requests: { method: string; path: string; authorized: boolean }[];
  failNext: (count: number, status: number, body?: unknown, headers?: Record<string, string>) => void;
  /** DM media as ton.twitter.com serves it (`/1.1/ton/data/dm/{event}/{media}/{name}`): the URL, for `media_url_https`. */
  addDmMedia: (name: string, bytes: Buffer, contentType: string) => string;
  close: () => Promise<void>;
};

export async function startFakeX(options: { credentials: FakeXCredentials; user: { id: string; name: string; username: string } }): Promise<FakeX> {
  const dms: FakeXDm[] = [];
  const requests: FakeX['requests'] = [];
  const failures: Failure[] = [];
  const media = new Map<string, { bytes: Buffer; contentType: string }>();
  let origin = '';

  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    const url = new URL(req.url ?? '/', origin);
    const oauth = parseOAuthHeader(req.headers.authorization);
    const authorized = oauth !== null && checkOAuth(req.method ?? 'GET', url, oauth, options.credentials);
    requests.push({ method: req.method ?? '', path: url.pathname, authorized });
    const failure = failures.shift();
    if (failure) return json(res, failure.status, failure.body, failure.headers);
    if (!authorized) return json(res, 401, problem(401, 'Unauthorized', 'Unauthorized'));

    if (req.method === 'GET' && url.pathname === '/2/users/me') return json(res, 200, { data: options.user });
    const file = req.method === 'GET' ? media.get(url.pathname) : undefined;
    if (file) {
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
      return res.end(file.bytes);
    }
    const dm = /^\/2\/dm_conversations\/with\/([^/]+)\/messages$/.exec(url.pathname);
    if (req.method === 'POST' && dm) {
      let payload: { text?: unknown };
      try {
        payload = JSON.parse(body.toString('utf8'));
      } catch {
        return json(res, 400, problem(400, 'Invalid Request', 'Request body is not valid JSON'));
      }
      if (typeof payload.text !== 'string' || payload.text === '')
        return json(res, 400, problem(400, 'Invalid Request', 'One or more parameters to your request was invalid.'));
      const participantId = decodeURIComponent(dm[1]);
      if (!/^\d+$/.test(participantId))
        return json(res, 400, problem(400, 'Invalid Request', `The \`participant_id\` query parameter value [${participantId}] is not valid`));
      const ids = [participantId, options.user.id].sort();
      const sent: FakeXDm = { participantId, text: payload.text, dmEventId: String(randomInt(1e12, 2 ** 47)), dmConversationId: ids.join('-'), oauth: oauth! };
      dms.push(sent);
      return json(res, 201, { data: { dm_conversation_id: sent.dmConversationId, dm_event_id: sent.dmEventId } });
    }
    return json(res, 404, problem(404, 'Not Found Error', 'Not found'));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    dms,
    requests,
    failNext(count, status, body = problem(status, `HTTP ${status}`, `HTTP ${status}`), headers = {}) {
      for (let i = 0; i < count; i++) failures.push({ status, body, headers });
    },
    addDmMedia(name, bytes, contentType) {
      const path = `/1.1/ton/data/dm/${randomInt(1e12, 2 ** 47)}/${randomInt(1e12, 2 ** 47)}/${encodeURIComponent(name)}`;
      media.set(path, { bytes, contentType });
      return `${origin}${path}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** X API v2's problem body. */
export function problem(status: number, title: string, detail: string) {
  return { title, detail, type: 'about:blank', status };
}

/** The `x-twitter-webhooks-signature` X would send with `rawBody`. */
export function signXWebhook(apiSecret: string, rawBody: Buffer | string): string {
  return 'sha256=' + createHmac('sha256', apiSecret).update(rawBody).digest('base64');
}

function parseOAuthHeader(header: string | undefined): Record<string, string> | null {
  if (!header?.startsWith('OAuth ')) return null;
  const params: Record<string, string> = {};
  for (const match of header.slice(6).matchAll(/([a-z_]+)="([^"]*)"/g)) params[match[1]] = decodeURIComponent(match[2]);
  return params;
}

/** RFC 5849 HMAC-SHA1 check; JSON bodies are not part of the signature base string. */
function checkOAuth(method: string, url: URL, oauth: Record<string, string>, credentials: FakeXCredentials): boolean {
  if (oauth.oauth_consumer_key !== credentials.api_key || oauth.oauth_token !== credentials.access_token) return false;
  if (oauth.oauth_signature_method !== 'HMAC-SHA1' || !oauth.oauth_signature) return false;
  const params: [string, string][] = [...url.searchParams.entries()];
  for (const [key, value] of Object.entries(oauth)) if (key !== 'oauth_signature' && key !== 'realm') params.push([key, value]);
  const normalized = params
    .map(([key, value]) => [encode(key), encode(value)])
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  const baseString = [method.toUpperCase(), encode(`${url.origin}${url.pathname}`), encode(normalized)].join('&');
  const key = `${encode(credentials.api_secret)}&${encode(credentials.access_token_secret)}`;
  return createHmac('sha1', key).update(baseString).digest('base64') === oauth.oauth_signature;
}

function encode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
