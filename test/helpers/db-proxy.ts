/**
 * A TCP proxy in front of a test database, to play PostgreSQL outages without touching the
 * shared server: down() refuses connections (and cuts the open ones), freeze() accepts them
 * and answers nothing (a stopped or overloaded server, a half-open link), up()/thaw() heal.
 */
import net from 'node:net';

export type DbProxy = {
  /** The target's connection string with the proxy's host and port. */
  url: string;
  down: () => Promise<void>;
  up: () => Promise<void>;
  freeze: () => void;
  thaw: () => void;
  close: () => Promise<void>;
};

export async function startDbProxy(target: string): Promise<DbProxy> {
  const targetUrl = new URL(target);
  const sockets = new Set<net.Socket>();
  const links = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let frozen = false;
  const keep = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    keep(client);
    if (frozen) return; // accepted, never answered
    const upstream = net.connect(Number(targetUrl.port || 5432), targetUrl.hostname);
    keep(upstream);
    const link = { client, upstream };
    links.add(link);
    client.on('close', () => links.delete(link));
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    down: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        cutAll();
      }),
    up: () => listen(port),
    freeze: () => {
      frozen = true;
      for (const { client, upstream } of links) {
        client.unpipe(upstream);
        upstream.unpipe(client);
      }
    },
    thaw: () => {
      frozen = false;
      cutAll(); // what was sent meanwhile is lost: those connections are beyond repair
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        cutAll();
      }),
  };
}
