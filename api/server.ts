/** The HTTP server: the Koa app and, on the same port, the realtime endpoint (api/realtime.ts). */
import http from 'node:http';
import type { Deps } from '../core/deps.ts';
import { createApp } from './app.ts';
import { attachRealtime, type Realtime, type RealtimeOptions } from './realtime.ts';

export type WebServer = { server: http.Server; port: number; realtime: Realtime; close: () => Promise<void> };

export type WebServerOptions = { realtime?: RealtimeOptions };

export async function startWebServer(deps: Deps, port: number, options: WebServerOptions = {}): Promise<WebServer> {
  const app = createApp(deps);
  const server = http.createServer(app.callback());
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
