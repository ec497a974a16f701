/**
 * A fake Twilio REST API on 127.0.0.1, checking requests as Twilio does: Basic auth with the
 * account SID and auth token, the account in the path, form fields `To`/`From`/`Body`.
 *
 *   const fake = await startFakeTwilio({ accountSid, authToken, numbers: ['+15550001111'] });
 *   connector.send(config, message, { baseUrl: fake.url, ... });
 *   fake.messages[0].to; fake.failNext(1, 500, { code: 20500, message: 'Internal' });
 *
 * `signTwilioWebhook` signs an inbound webhook the way Twilio does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { readAll, sendJson as json } from './http-fake.ts';
import twilio from 'twilio';

export type FakeTwilioMessage = {
  sid: string;
  accountSid: string;
  to: string;
  from: string;
  body: string;
  mediaUrl: string[];
  statusCallback?: string;
  /** The raw form fields received. */
  form: URLSearchParams;
};

export type FakeIncomingNumber = { sid: string; phoneNumber: string; smsUrl: string; smsMethod: string };

type Failure = { status: number; body: unknown; headers: Record<string, string> };

export type FakeTwilio = {
  url: string;
  messages: FakeTwilioMessage[];
  numbers: FakeIncomingNumber[];
  /** Every request: method, path, and whether its credentials were right. */
  requests: { method: string; path: string; authorized: boolean }[];
  /**
   * Media of an inbound MMS; returns its MediaUrl. Like Twilio with HTTP auth enforced for media:
   * `GET MediaUrl` needs the account's Basic credentials (401 otherwise) and redirects (307) to a
   * short-lived CDN URL on this server that serves the bytes with their type.
   */
  addMedia: (media: { bytes: Buffer; contentType: string }) => string;
  /** The next `count` API calls answer `status` with `body` (a Twilio error body) instead. */
  failNext: (count: number, status: number, body?: unknown, headers?: Record<string, string>) => void;
  close: () => Promise<void>;
};

const sid = (prefix: string) => prefix + randomBytes(16).toString('hex');

export async function startFakeTwilio(options: { accountSid: string; authToken: string; numbers?: string[] }): Promise<FakeTwilio> {
  const messages: FakeTwilioMessage[] = [];
  const numbers: FakeIncomingNumber[] = (options.numbers ?? []).map((phoneNumber) => ({ sid: sid('PN'), phoneNumber, smsUrl: '', smsMethod: 'POST' }));
  const requests: FakeTwilio['requests'] = [];
  const failures: Failure[] = [];
  const media = new Map<string, { bytes: Buffer; contentType: string; cdn: string }>();

  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    const cdn = /^\/cdn\/([0-9a-f]+)$/.exec(url.pathname);
    if (cdn) {
      requests.push({ method: req.method ?? '', path: url.pathname, authorized: false });
      const item = [...media.values()].find((m) => m.cdn === cdn[1]);
      if (!item) return json(res, 404, twilioError(404, 20404, 'The requested resource was not found'));
      res.writeHead(200, { 'content-type': item.contentType, 'content-length': String(item.bytes.length) });
      return res.end(item.bytes);
    }
    const authorized = checkAuth(req, options.accountSid, options.authToken);
    requests.push({ method: req.method ?? '', path: url.pathname, authorized });
    const failure = failures.shift();
    if (failure) return json(res, failure.status, failure.body, failure.headers);
    if (!authorized) return json(res, 401, twilioError(401, 20003, 'Authenticate'));

    const prefix = `/2010-04-01/Accounts/${options.accountSid}`;
    if (!url.pathname.startsWith(`${prefix}/`)) return json(res, 404, twilioError(404, 20404, 'The requested resource was not found'));
    const rest = url.pathname.slice(prefix.length);
    const form = new URLSearchParams(body.toString('utf8'));

    if (req.method === 'POST' && rest === '/Messages.json') return createMessage(res, form);
    const mediaMatch = /^\/Messages\/MM[0-9a-f]+\/Media\/(ME[0-9a-f]+)$/.exec(rest);
    if (req.method === 'GET' && mediaMatch) {
      const item = media.get(mediaMatch[1]);
      if (!item) return json(res, 404, twilioError(404, 20404, 'The requested resource was not found'));
      res.writeHead(307, { location: `/cdn/${item.cdn}` });
      return res.end();
    }
    if (req.method === 'GET' && rest === '/IncomingPhoneNumbers.json') {
      const wanted = url.searchParams.get('PhoneNumber');
      const found = numbers.filter((n) => !wanted || n.phoneNumber === wanted).map(numberJson);
      return json(res, 200, {
        incoming_phone_numbers: found,
        page: 0,
        page_size: 50,
        first_page_uri: `${prefix}/IncomingPhoneNumbers.json`,
        next_page_uri: null,
        previous_page_uri: null,
        uri: url.pathname,
      });
    }
    const numberMatch = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]+)\.json$/.exec(rest);
    if (req.method === 'POST' && numberMatch) {
      const number = numbers.find((n) => n.sid === numberMatch[1]);
      if (!number) return json(res, 404, twilioError(404, 20404, 'The requested resource was not found'));
      if (form.has('SmsUrl')) number.smsUrl = form.get('SmsUrl')!;
      if (form.has('SmsMethod')) number.smsMethod = form.get('SmsMethod')!;
      return json(res, 200, numberJson(number));
    }
    return json(res, 404, twilioError(404, 20404, 'The requested resource was not found'));
  });

  function createMessage(res: ServerResponse, form: URLSearchParams) {
    const to = form.get('To');
    const from = form.get('From');
    const body = form.get('Body') ?? '';
    const mediaUrl = form.getAll('MediaUrl');
    if (!to) return json(res, 400, twilioError(400, 21604, "A 'To' phone number is required."));
    if (!/^\+[1-9]\d{6,14}$/.test(to)) return json(res, 400, twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`));
    if (!from) return json(res, 400, twilioError(400, 21603, "A 'From' phone number is required."));
    if (body === '' && mediaUrl.length === 0) return json(res, 400, twilioError(400, 21602, 'Message body is required.'));
    const message: FakeTwilioMessage = { sid: sid('SM'), accountSid: options.accountSid, to, from, body, mediaUrl, form };
    const statusCallback = form.get('StatusCallback');
    if (statusCallback) message.statusCallback = statusCallback;
    messages.push(message);
    return json(res, 201, {
      sid: message.sid,
      account_sid: options.accountSid,
      to,
      from,
      body,
      status: 'queued',
      direction: 'outbound-api',
      num_media: String(mediaUrl.length),
      num_segments: '1',
      api_version: '2010-04-01',
      date_created: new Date().toUTCString(),
      error_code: null,
      error_message: null,
      uri: `/2010-04-01/Accounts/${options.accountSid}/Messages/${message.sid}.json`,
    });
  }

  function numberJson(number: FakeIncomingNumber) {
    return { sid: number.sid, account_sid: options.accountSid, phone_number: number.phoneNumber, sms_url: number.smsUrl, sms_method: number.smsMethod };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    addMedia: (item) => {
      const mediaSid = sid('ME');
      media.set(mediaSid, { ...item, cdn: randomBytes(12).toString('hex') });
      return `${origin}/2010-04-01/Accounts/${options.accountSid}/Messages/${sid('MM')}/Media/${mediaSid}`;
    },
    messages,
    numbers,
    requests,
    failNext(count, status, body = twilioError(status, 0, `HTTP ${status}`), headers = {}) {
      for (let i = 0; i < count; i++) failures.push({ status, body, headers });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Twilio's error body shape. */
export function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

/** The X-Twilio-Signature Twilio would send for a POST of `params` to `url`. */
export function signTwilioWebhook(authToken: string, url: string, params: Record<string, string>): string {
  return twilio.getExpectedTwilioSignature(authToken, url, params);
}

function checkAuth(req: IncomingMessage, accountSid: string, authToken: string): boolean {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  return Buffer.from(header.slice(6), 'base64').toString('utf8') === `${accountSid}:${authToken}`;
}
