/**
 * The event bus across processes. publish() goes through Redis with @socket.io/redis-emitter:
 * the Redis adapter of every API node's Socket.IO server listens under the same key and
 * delivers the event to its own sockets, so workers (which have no Socket.IO server) publish
 * exactly as the API does. subscribe() stays local to this process.
 */
import { Emitter } from '@socket.io/redis-emitter';
import { Redis } from 'ioredis';
import { createLocalEventBus, type EventBus } from '../events/bus.ts';
import type { Logger } from './logger.ts';

/** Prefix of the Redis pub/sub channels the emitter and the adapters share. */
export const defaultRealtimeKey = 'parley:socket.io';

export type RedisEventBusOptions = {
  url: string;
  /** Channel prefix; must equal the API nodes' adapter key (default `defaultRealtimeKey`). */
  key?: string;
  logger: Logger;
};

/**
 * An ioredis client that logs an outage once (ioredis retries forever and would otherwise
 * report every failed reconnect) and its recovery.
 */
export function createRedisClient(url: string, logger: Logger, role: string, options: { autoPipelining?: boolean } = {}): Redis {
  const redis = new Redis(url, { enableAutoPipelining: options.autoPipelining ?? false });
  watchRedis(redis, logger, role);
  return redis;
}

/** Commands Socket.IO's Redis emitter and adapter send without waiting on their answer. */
type UnawaitedCommand = 'publish' | 'subscribe' | 'psubscribe' | 'unsubscribe' | 'punsubscribe';

/**
 * Makes `commands` of this client never reject: the emitter (every live event) and the
 * Socket.IO adapter (typing and presence signals, disconnects; its subscriptions, made again on
 * each reconnect by ioredis, and its unsubscribes as it closes)
 * drop the promises of these commands, so one that fails (Redis away past ioredis's retries,
 * or the client closing with it queued: "Connection is closed.") would be an unhandled
 * rejection, which ends the process: a Redis outage would take `web` down with it. The failure
 * is logged instead; a lost live event or signal costs a dashboard a refresh, never data.
 */
export function catchUnawaited(redis: Redis, commands: readonly UnawaitedCommand[], logger: Logger, role: string): Redis {
  for (const name of commands) {
    const command = (redis[name] as (...args: unknown[]) => Promise<unknown>).bind(redis);
    Object.assign(redis, {
      [name]: (...args: unknown[]) =>
        command(...args).catch((error: Error) => {
          logger.warn({ role, command: name, channel: typeof args[0] === 'string' ? args[0] : undefined, err: error.message }, 'redis command failed');
          return 0;
        }),
    });
  }
  return redis;
}

export function watchRedis(redis: Redis, logger: Logger, role: string): void {
  let healthy = true;
  redis.on('error', (error: Error) => {
    if (!healthy) return;
    healthy = false;
    logger.warn({ role, err: error.message }, 'redis unavailable: retrying');
  });
  redis.on('ready', () => {
    if (healthy) return;
    healthy = true;
    logger.info({ role }, 'redis connection restored');
  });
}

/** Closes a client without waiting on a server that is not there. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}

export function createRedisEventBus(options: RedisEventBusOptions): EventBus {
  const { logger } = options;
  // The events of one command are published in one tick (publishEvents): auto-pipelining sends
  // them to Redis in one write instead of one write each.
  // The emitter only ever calls publish(), and drops its promise: see catchUnawaited.
  const redis = catchUnawaited(createRedisClient(options.url, logger, 'events', { autoPipelining: true }), ['publish'], logger, 'events');
  const emitter = new Emitter(redis, { key: options.key ?? defaultRealtimeKey });
  const local = createLocalEventBus();
  return {
    reachesSockets: true,
    publish: (event) => {
      // An emit without rooms would reach every socket of every business.
      if (event.rooms.length) {
        try {
          (event.namespace ? emitter.of(event.namespace) : emitter).to(event.rooms).emit(event.name, event.payload);
        } catch (error) {
          logger.error({ event: event.name, err: (error as Error).message }, 'live event not published');
        }
      }
      local.publish(event);
    },
    subscribe: local.subscribe,
    disconnect: (cut) => {
      // Every node's adapter ends its own sockets in these rooms (an empty list would be all of them).
      if (cut.rooms.length) {
        try {
          (cut.namespace ? emitter.of(cut.namespace) : emitter)
            .in(cut.rooms)
            .except(cut.except ?? [])
            .disconnectSockets(true);
        } catch (error) {
          logger.error({ err: (error as Error).message }, 'socket disconnect not published');
        }
      }
      local.disconnect(cut);
    },
    subscribeDisconnects: local.subscribeDisconnects,
    close: async () => {
      await local.close();
      await closeRedis(redis);
    },
  };
}
