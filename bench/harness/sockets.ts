/** Dashboard sockets as the web app opens them: websocket transport, the bearer token as auth. */
import { io, type Socket } from 'socket.io-client';

/** Opens `count` sockets to `url`, `parallel` handshakes at a time; rejects if one is refused. */
export async function connectSockets(url: string, count: number, auth?: Record<string, string>, parallel = 50): Promise<Socket[]> {
  const sockets: Socket[] = [];
  let next = 0;
  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = io(url, { transports: ['websocket'], auth, reconnection: false, forceNew: true });
      socket.once('connect', () => resolve(socket));
      socket.once('connect_error', (error) => {
        socket.close();
        reject(new Error(`socket to ${url} refused: ${error.message}`));
      });
    });
  try {
    await Promise.all(
      Array.from({ length: Math.min(parallel, count) }, async () => {
        while (next < count) {
          next += 1;
          sockets.push(await open());
        }
      }),
    );
  } catch (error) {
    closeSockets(sockets);
    throw error;
  }
  return sockets;
}

export function closeSockets(sockets: Socket[]): void {
  for (const socket of sockets) socket.close();
}

/** Resolves with the first `event` on `socket` whose payload passes `match`, or null after `timeoutMs`. */
export function nextEvent(socket: Socket, event: string, match: (payload: any) => boolean, timeoutMs: number): Promise<any | null> {
  return new Promise((resolve) => {
    const listener = (payload: any) => {
      if (!match(payload)) return;
      clearTimeout(timer);
      socket.off(event, listener);
      resolve(payload);
    };
    const timer = setTimeout(() => {
      socket.off(event, listener);
      resolve(null);
    }, timeoutMs);
    socket.on(event, listener);
  });
}
