/**
 * The one `publish()` seam for live events. Events are published after the transaction that
 * made them commits. In one process they go straight to the Socket.IO server; across nodes a
 * Redis-backed bus carries them (see api/realtime.ts and core/redis-events.ts).
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

export type EventBus = {
  publish: (event: ParleyEvent) => void;
  /** Listen to every published event; returns the unsubscribe function. */
  subscribe: (listener: (event: ParleyEvent) => void) => () => void;
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
};

export function createLocalEventBus(): EventBus {
  const listeners = new Set<(event: ParleyEvent) => void>();
  return {
    publish: (event) => {
      for (const listener of listeners) listener(event);
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => listeners.clear(),
  };
}
