/**
 * Live replies: the `/widget` Socket.IO namespace with the visitor token. WebSocket only, so
 * it works from any origin (no CORS) and across API nodes without sticky sessions.
 */
import { io, type Socket } from 'socket.io-client';
import type { VisitorMessage } from './api.ts';

export type LiveHandlers = {
  onMessage: (message: VisitorMessage) => void;
  /** An agent started or stopped typing a reply. */
  onTyping: (typing: boolean) => void;
  /** Every (re)connection: a chance to fetch what was missed while disconnected. */
  onConnect: () => void;
  /** The server refused the token: the visitor must start again. */
  onRefused: (detail: string) => void;
};

/** `base` is the API address, possibly with a path prefix (`https://host/parley`). */
export function connectLive(base: string, token: string, handlers: LiveHandlers): Socket {
  const url = new URL(base);
  const prefix = url.pathname.replace(/\/+$/, '');
  const socket = io(`${url.origin}/widget`, {
    path: `${prefix}/socket.io`,
    transports: ['websocket'],
    auth: { visitor_token: token },
  });
  socket.on('message_created', (message: VisitorMessage) => handlers.onMessage(message));
  socket.on('typing', (signal: { typing?: unknown }) => handlers.onTyping(signal?.typing === true));
  socket.on('connect', () => handlers.onConnect());
  socket.on('connect_error', (error: Error) => {
    // A refusal by the server (not a network failure) is final: socket.io does not retry it.
    if (!socket.active) handlers.onRefused(error.message);
  });
  return socket;
}

/** Agents see the visitor type: once at once, then at most every REPEAT_MS while the text changes; a stop when emptied, sent or idle. */
const REPEAT_MS = 2500;
const IDLE_MS = 4000;

export function typingSender(socket: () => Socket | null) {
  let active = false;
  let lastSent = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const send = (typing: boolean) => {
    const s = socket();
    if (s?.connected) s.volatile.emit('typing', { typing });
  };
  const stop = () => {
    clearTimeout(idle);
    if (active) send(false);
    active = false;
  };
  return {
    input(text: string): void {
      if (!text.trim()) return stop();
      const at = Date.now();
      if (!active || at - lastSent >= REPEAT_MS) {
        send(true);
        active = true;
        lastSent = at;
      }
      clearTimeout(idle);
      idle = setTimeout(stop, IDLE_MS);
    },
    stop,
  };
}
