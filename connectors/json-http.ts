/**
 * JSON requests to a platform over node:http and node:https with keep-alive agents: the client
 * of the hot send path (Meta's Graph API: every WhatsApp and Instagram reply). Node's fetch
 * (undici behind WHATWG Request, Response, Headers and streams) cost 0.3-0.5 ms of CPU per
 * request on the bench VM against ~0.1 ms for node:http (bench/README.md), and a worker sends
 * every reply: that is a tenth of its CPU per reply.
 *
 * The answer is its status, its Retry-After header and its body (JSON when it parses, else the
 * text; undefined when empty). A failure before an answer (refused, reset, DNS, no answer for
 * ANSWER_TIMEOUT_MS) rejects; callers make it a transient ConnectorError (networkError).
 */
import http from 'node:http';
import https from 'node:https';
import { parseAnswerText } from './http-errors.ts';

/** As long as undici's default headers and body timeouts, which fetch had here. */
const ANSWER_TIMEOUT_MS = 300_000;

// Keep-alive: one connection per platform host serves request after request (Node honours the
// server's Keep-Alive timeout hint, so an idle connection is not reused just as it closes).
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

export type JsonAnswer = { status: number; retryAfter: string | null; body: unknown };

export function requestJson(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: unknown): Promise<JsonAnswer> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new Error(`not an HTTP URL: ${target.protocol}`));
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method,
        agent: agents[target.protocol as keyof typeof agents],
        timeout: ANSWER_TIMEOUT_MS,
        headers: {
          accept: 'application/json',
          ...headers,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const retryAfter = response.headers['retry-after'];
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
            body: parseAnswerText(Buffer.concat(chunks).toString('utf8')),
          });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS / 1000} s`)));
    request.on('error', reject);
    request.end(payload);
  });
}
