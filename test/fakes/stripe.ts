/**
 * A fake Stripe API on 127.0.0.1 that checks Checkout Session requests the way Stripe would:
 * form-encoded body, `Authorization: Bearer <secret key>`, `mode=subscription`, a price line
 * item, `client_reference_id`, `metadata[...]`, return URLs. It records every request and
 * answers like Stripe (`{id, object: 'checkout.session', url, ...}` or `{error: {...}}`).
 *
 *   const stripe = await startFakeStripe({ secretKey: 'sk_test_x' });
 *   startTestApp({ env: { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_API_URL: stripe.url, ... } });
 *   stripe.requests[0].form['metadata[plan]']
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export type FakeStripeRequest = {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The form-encoded body, keys as Stripe encodes them (`line_items[0][price]`). */
  form: Record<string, string>;
};

export type FakeStripe = {
  /** Base URL for STRIPE_API_URL. */
  url: string;
  requests: FakeStripeRequest[];
  /** When set, the next checkout request is answered with this status and a Stripe error body. */
  failNext: (status: number, message?: string) => void;
  /** The price a session sold, as Stripe keeps it (sessions created through the fake are recorded by themselves). */
  setSessionPrice: (sessionId: string, priceId: string) => void;
  /** Ids of the Checkout Sessions the fake created, oldest first. */
  sessionIds: string[];
  close: () => Promise<void>;
};

const stripeError = (res: http.ServerResponse, status: number, type: string, message: string, param?: string) => {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}` });
  res.end(JSON.stringify({ error: { type, message, ...(param ? { param } : {}) } }));
};

/** Required form fields of a subscription Checkout Session, and what each must look like. */
const required: [string, (v: string) => boolean][] = [
  ['mode', (v) => v === 'subscription'],
  ['line_items[0][price]', (v) => v.length > 0],
  ['line_items[0][quantity]', (v) => v === '1'],
  ['success_url', (v) => /^https?:\/\//.test(v)],
  ['cancel_url', (v) => /^https?:\/\//.test(v)],
  ['client_reference_id', (v) => v.length > 0 && v.length <= 200],
  ['metadata[business_id]', (v) => v.length > 0],
  ['metadata[plan]', (v) => v === 'mini' || v === 'pro'],
];

export async function startFakeStripe(options: { secretKey: string }): Promise<FakeStripe> {
  const requests: FakeStripeRequest[] = [];
  let failure: { status: number; message: string } | null = null;
  const sessionPrices = new Map<string, string>();
  const sessionIds: string[] = [];

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const form = Object.fromEntries(new URLSearchParams(text));
    const path = (req.url ?? '/').split('?')[0];
    requests.push({ method: req.method ?? '', path, headers: req.headers, form });

    if (req.headers.authorization !== `Bearer ${options.secretKey}`) {
      return stripeError(res, 401, 'invalid_request_error', 'Invalid API Key provided');
    }
    // GET /v1/checkout/sessions/{id}/line_items: what the session sold, as a Stripe list.
    const lineItems = /^\/v1\/checkout\/sessions\/([^/]+)\/line_items$/.exec(path);
    if (req.method === 'GET' && lineItems) {
      const price = sessionPrices.get(decodeURIComponent(lineItems[1]));
      if (!price) return stripeError(res, 404, 'invalid_request_error', `No such checkout.session: '${lineItems[1]}'`, 'session');
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}` });
      return res.end(
        JSON.stringify({
          object: 'list',
          url: path,
          has_more: false,
          data: [{ id: `li_${randomBytes(6).toString('hex')}`, object: 'item', quantity: 1, price: { id: price, object: 'price' } }],
        }),
      );
    }
    if (req.method !== 'POST' || path !== '/v1/checkout/sessions') {
      return stripeError(res, 404, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${path})`);
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return stripeError(res, 400, 'invalid_request_error', 'Request body must be form-encoded');
    }
    for (const [field, ok] of required) {
      if (form[field] === undefined) return stripeError(res, 400, 'invalid_request_error', `Missing required param: ${field}.`, field);
      if (!ok(form[field])) return stripeError(res, 400, 'invalid_request_error', `Invalid value for ${field}.`, field);
    }
    if (form.customer !== undefined && form.customer_email !== undefined) {
      return stripeError(res, 400, 'invalid_request_error', 'You may only specify one of these parameters: customer, customer_email.');
    }
    if (failure) {
      const { status, message } = failure;
      failure = null;
      return stripeError(res, status, status >= 500 ? 'api_error' : 'invalid_request_error', message);
    }
    const id = `cs_test_${randomBytes(12).toString('hex')}`;
    sessionPrices.set(id, form['line_items[0][price]']);
    sessionIds.push(id);
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}` });
    res.end(
      JSON.stringify({
        id,
        object: 'checkout.session',
        mode: 'subscription',
        status: 'open',
        payment_status: 'unpaid',
        client_reference_id: form.client_reference_id,
        metadata: { business_id: form['metadata[business_id]'], plan: form['metadata[plan]'] },
        success_url: form.success_url,
        cancel_url: form.cancel_url,
        url: `https://checkout.stripe.com/c/pay/${id}`,
      }),
    );
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (status, message = 'Something went wrong') => {
      failure = { status, message };
    },
    setSessionPrice: (sessionId, priceId) => void sessionPrices.set(sessionId, priceId),
    sessionIds,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
