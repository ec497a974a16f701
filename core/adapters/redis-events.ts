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
  const redis = createRedisClient(options.url, logger, 'events', { autoPipelining: true });
  // The emitter only ever calls publish(). It drops the returned promise, so a failure while
  // Redis is away would be an unhandled rejection (a crash); it is logged here instead. A lost
  // live event costs a dashboard a refresh, never data: the rows are already committed.
  const client = {
    publish: (channel: string, message: Buffer | string) =>
      redis.publish(channel, message).catch((error: Error) => {
        logger.warn({ channel, err: error.message }, 'live event not published');
        return 0;
      }),
  };
  const emitter = new Emitter(client, { key: options.key ?? defaultRealtimeKey });
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
