/**
 * Live events over Socket.IO on this origin (auth: the access token). Events carry ids and
 * the new state; listeners re-read what they show through the REST API. Every time the
 * connection comes up (the first time too, not only after a drop) `onResync` listeners re-read
 * what they show once: the page reads through REST before its connection is up, and whatever
 * happened between that read and the connect (or while the connection was down) reached no
 * socket of this tab. When the server closes or refuses the connection on purpose,
 * `onClosedByServer` listeners decide what follows (sign in again, onboarding, or connect again).
 */
import { signal } from '@preact/signals';
import { io, type Socket } from 'socket.io-client';

export type LiveEvent = { name: string; payload: Record<string, unknown> };
type Listener = (event: LiveEvent) => void;

/** `reconnecting` once a live connection was lost (the inbox says so until it is back). */
export const liveState = signal<'connecting' | 'live' | 'reconnecting'>('connecting');

const listeners = new Set<Listener>();
const resyncListeners = new Set<() => void>();
const closedListeners = new Set<() => void>();
let socket: Socket | null = null;

const EVENTS = [
  'conversation_created',
  'conversation_updated',
  'conversation_assigned',
  'message_created',
  'message_updated',
  'message_deleted',
  'agent_status_changed',
  'channel_updated',
  'handoff_requested',
  'mention_created',
  'conversation_hidden',
  'typing',
  'conversation_presence',
  'customer_updated',
  'customer_merged',
  'customer_erased',
  'settings_changed',
];

/** Conversations this tab shows: joined (followed and counted as viewing) on every connect. */
const followed = new Set<string>();

export function connectLive(token: string): void {
  disconnectLive();
  const s = io({ auth: { token }, transports: ['websocket'] });
  // A replaced socket's late events must not touch the shared state.
  s.on('connect', () => {
    if (socket !== s) return;
    liveState.value = 'live';
    // A new connection is in no conversation's room yet: join the ones shown.
    for (const id of followed) s.emit('join_conversation', { conversation_id: id });
    // From here on the server sends this tab every event: one re-read catches up on the rest.
    for (const listener of resyncListeners) listener();
  });
  s.on('disconnect', (reason) => {
    if (socket !== s) return;
    liveState.value = 'reconnecting';
    // Closed by the server on purpose (token expired or revoked, removed from the team):
    // Socket.IO will not come back by itself, so the session is checked again.
    if (reason === 'io server disconnect') closedListeners.forEach((listener) => listener());
  });
  // A refused handshake (a revoked token, the server's database briefly away) is not retried
  // by Socket.IO itself either: the session is checked the same way.
  s.on('connect_error', () => {
    if (socket === s && !s.active) closedListeners.forEach((listener) => listener());
  });
  for (const name of EVENTS) s.on(name, (payload: Record<string, unknown>) => listeners.forEach((l) => l({ name, payload })));
  socket = s;
}

export function disconnectLive(): void {
  socket?.disconnect();
  socket = null;
  liveState.value = 'connecting';
}

export function onLive(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Called on every connect, the first included: re-read what the live events keep current. */
export function onResync(listener: () => void): () => void {
  resyncListeners.add(listener);
  return () => resyncListeners.delete(listener);
}

export function onClosedByServer(listener: () => void): () => void {
  closedListeners.add(listener);
  return () => closedListeners.delete(listener);
}

/**
 * Follows a conversation while it is open (the server counts this tab as viewing it, see
 * `conversation_presence`), now and after every reconnect; returns the stop function.
 */
export function followConversationLive(id: string): () => void {
  followed.add(id);
  if (socket?.connected) socket.emit('join_conversation', { conversation_id: id });
  return () => {
    followed.delete(id);
    if (socket?.connected) socket.emit('leave_conversation', { conversation_id: id });
  };
}

/** Says whether the agent is typing in a followed conversation (volatile: dropped when not connected). */
export function sendTyping(conversationId: string, typing: boolean, isPrivate: boolean): void {
  if (socket?.connected) socket.volatile.emit('typing', { conversation_id: conversationId, typing, private: isPrivate });
}
