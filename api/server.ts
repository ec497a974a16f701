/** The HTTP server: the Koa app and, on the same port, the realtime endpoint (api/realtime.ts). */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Deps } from '../core/deps.ts';
import { createApp } from './app.ts';
import { attachRealtime, type Realtime, type RealtimeOptions } from './realtime.ts';

export type WebServer = { server: http.Server; port: number; realtime: Realtime; close: () => Promise<void> };

export type WebServerOptions = { realtime?: RealtimeOptions };

/** Status, reason and detail for a request Node's parser refused before Koa saw it. */
function clientErrorAnswer(code: string | undefined): [number, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return [431, 'Request Header Fields Too Large', `The request line and headers together may be at most ${http.maxHeaderSize} bytes`];
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout', 'Request timeout'];
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return [413, 'Content Too Large', 'Request body too large'];
  return [400, 'Bad Request', 'Malformed HTTP request'];
}

/**
 * Node answers requests it cannot parse (an oversized URL or headers, bad framing) itself, with
 * an empty body; this answers them in the spec's shape, `{detail}` with X-Request-Id, then
 * closes the connection as Node does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, detail] = clientErrorAnswer(error.code);
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startWebServer(deps: Deps, port: number, options: WebServerOptions = {}): Promise<WebServer> {
  const app = createApp(deps);
  const server = http.createServer(app.callback());
  server.on('clientError', answerClientError);
  const realtime = attachRealtime(server, deps, options.realtime);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '0.0.0.0', () => resolve());
    });
  } catch (error) {
    await realtime.close();
    throw error;
  }
  await realtime.ready;
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    port: actualPort,
    realtime,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      // Upgraded websocket connections are not HTTP connections any more: the realtime layer ends them.
      await realtime.close();
      await closed;
    },
  };
}
