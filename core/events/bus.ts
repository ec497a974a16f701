/**
 * The one `publish()` seam for live events. Events are published after the transaction that
 * made them commits. In one process they go straight to the Socket.IO server; across nodes a
 * Redis-backed bus carries them (see api/realtime.ts and core/adapters/redis-events.ts). What events
 * exist, what they carry and where they go: core/events/catalogue.ts; this is their transport.
 */
export type ParleyEvent = {
  /** Event name, e.g. `agent_status_changed`. */
  name: string;
  /** Rooms that receive it: `business:<id>`, `user:<id>`, `conversation:<id>`. */
  rooms: string[];
  payload: Record<string, unknown>;
  /** Socket.IO namespace; default `/` (dashboards). Website visitors' events use `/widget`. */
  namespace?: string;
};

/** Live connections to end: every socket in any of these rooms of the namespace (default `/`). */
/** Sockets in any of `rooms` (of `namespace`), except those also in one of `except`. */
export type SocketCut = { rooms: string[]; namespace?: string; except?: string[] };

export type EventBus = {
  publish: (event: ParleyEvent) => void;
  /** Listen to every published event; returns the unsubscribe function. */
  subscribe: (listener: (event: ParleyEvent) => void) => () => void;
  /**
   * Ends the sockets in the cut's rooms on every node, so a revoked session or a removed member
   * stops receiving events at once (not when the token expires). No rooms: nothing happens.
   */
  disconnect: (cut: SocketCut) => void;
  /** Listen to disconnect requests (the realtime layer relays them when `reachesSockets` is false). */
  subscribeDisconnects: (listener: (cut: SocketCut) => void) => () => void;
  close: () => Promise<void>;
  /**
   * True when publish() itself reaches the Socket.IO rooms on every node (the Redis bus);
   * otherwise (default) the realtime layer relays subscribed events to its own sockets.
   */
  reachesSockets?: boolean;
};

export const rooms = {
  business: (id: string) => `business:${id}`,
  user: (id: string) => `user:${id}`,
  conversation: (id: string) => `conversation:${id}`,
  /** Every socket opened with one access token (its `jti`): cut when the token is revoked. */
  session: (jti: string) => `session:${jti}`,
  /** One website visitor (a customer of a widget channel), in the `/widget` namespace. */
  visitor: (customerId: string) => `visitor:${customerId}`,
};

/** The Socket.IO namespace of website visitors. */
export const WIDGET_NAMESPACE = '/widget';

/** A listener set: add returns the remove function. */
function listenerSet<T>() {
  const listeners = new Set<(value: T) => void>();
  return {
    emit: (value: T) => {
      for (const listener of listeners) listener(value);
    },
    add: (listener: (value: T) => void) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    clear: () => listeners.clear(),
  };
}

export function createLocalEventBus(): EventBus {
  const events = listenerSet<ParleyEvent>();
  const cuts = listenerSet<SocketCut>();
  return {
    publish: events.emit,
    subscribe: events.add,
    disconnect: (cut) => {
      if (cut.rooms.length) cuts.emit(cut);
    },
    subscribeDisconnects: cuts.add,
    close: async () => {
      events.clear();
      cuts.clear();
    },
  };
}
