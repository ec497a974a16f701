/**
 * Live replies: the `/widget` Socket.IO namespace with the visitor token. WebSocket only, so
 * it works from any origin (no CORS) and across API nodes without sticky sessions.
 */
import { io, type Socket } from 'socket.io-client';
import type { VisitorMessage } from './api.ts';

export type LiveHandlers = {
  onMessage: (message: VisitorMessage) => void;
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
  socket.on('connect', () => handlers.onConnect());
  socket.on('connect_error', (error: Error) => {
    // A refusal by the server (not a network failure) is final: socket.io does not retry it.
    if (!socket.active) handlers.onRefused(error.message);
  });
  return socket;
}
