/** The HTTP server: the Koa app (and, with it, the realtime endpoint). */
import http from 'node:http';
import type { Deps } from '../core/deps.ts';
import { createApp } from './app.ts';

export type WebServer = { server: http.Server; port: number; close: () => Promise<void> };

export async function startWebServer(deps: Deps, port: number): Promise<WebServer> {
  const app = createApp(deps);
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    port: actualPort,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
