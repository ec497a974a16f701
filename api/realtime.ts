/**
 * Live events for dashboards: Socket.IO on the API's own origin at `/socket.io`.
 *
 * A dashboard connects with `auth: {token}` (its bearer JWT), checked exactly like a REST
 * request; a missing or bad token is a `connect_error` whose message (and `data.detail`) is the
 * REST 401 text. A connected socket is in `user:<id>` and, for a member, `business:<id>`;
 * `join_conversation {conversation_id}` adds `conversation:<id>` when the conversation belongs
 * to the caller's business (`leave_conversation` undoes it); a joined conversation is one the
 * member is viewing, and its `typing` may be sent (api/realtime-signals.ts: typing and
 * `conversation_presence`). All answer an acknowledgement `{ok: true}` or `{ok: false, detail}`. The connection ends when the token expires, when it is
 * revoked (logout: room `session:<jti>`) and when the member is removed from the business
 * (room `user:<id>`), on every node (`deps.events.disconnect`).
 *
 * Events published through `deps.events` reach their rooms. Without REDIS_URL the local bus is
 * relayed to this server. With REDIS_URL this server uses the Redis adapter and the bus
 * publishes through the Redis emitter (core/adapters/redis-events.ts), so an event published by any
 * API node or worker reaches sockets on every node. Multi-node dashboards should connect with
 * `transports: ['websocket']` (long polling needs sticky sessions).
 */
import type http from 'node:http';
import type { Context } from 'koa';
import { createAdapter } from '@socket.io/redis-adapter';
import { Server, type Socket } from 'socket.io';
import { z } from 'zod';
import type { Deps } from '../core/deps.ts';
import { HttpError } from '../core/errors.ts';
import { rooms, type ParleyEvent, type SocketCut } from '../core/events/bus.ts';
import { catchUnawaited, closeRedis, createRedisClient, defaultRealtimeKey } from '../core/adapters/redis-events.ts';
import { authenticate, type Caller } from './middlewares/auth.ts';
import { attachWidgetNamespace } from './realtime-widget.ts';
import { disconnectAtExpiry } from './socket-expiry.ts';
import { attachDashboardSignals, joinableConversation, replyOf } from './realtime-signals.ts';

export type RealtimeOptions = {
  /** Redis channel prefix shared with the event bus (default `defaultRealtimeKey`). */
  redisKey?: string;
};

export type Realtime = {
  io: Server;
  /**
   * Settles once this node listens to Redis (its adapter's subscriptions are in place), so no
   * event published after it is missed; at once without Redis. Never rejects: an unreachable
   * Redis settles it at the first failed connection (logged); the adapter subscribes when
   * Redis comes back.
   */
  ready: Promise<void>;
  /** Disconnects every socket and releases Redis; the HTTP server is closed by its owner. */
  close: () => Promise<void>;
};

type SocketData = { caller: Caller };

const joinPayload = z.object({ conversation_id: z.uuid() });

export function attachRealtime(server: http.Server, deps: Deps, options: RealtimeOptions = {}): Realtime {
  const origins = deps.config.CORS_ORIGINS;
  const io = new Server<Record<string, never>, Record<string, never>, Record<string, never>, SocketData>(server, {
    path: '/socket.io',
    serveClient: false,
    // Same origin needs no CORS; other dashboard origins are the REST API's allowed ones.
    cors: origins.length ? { origin: origins, credentials: true } : undefined,
  });

  // The adapter publishes (signals, disconnects), subscribes and unsubscribes without waiting:
  // catchUnawaited keeps a Redis outage from ending the process.
  const redis = deps.config.REDIS_URL
    ? catchUnawaited(createRedisClient(deps.config.REDIS_URL, deps.logger, 'realtime-pub'), ['publish'], deps.logger, 'realtime-pub')
    : null;
  const redisSub = redis ? catchUnawaited(redis.duplicate(), ['subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'], deps.logger, 'realtime-sub') : null;
  if (redis && redisSub) {
    redisSub.on('error', () => {}); // reported once through the publishing client's watcher
    io.adapter(createAdapter(redis, redisSub, { key: options.redisKey ?? defaultRealtimeKey }));
  }
  // Commands on one connection run in order: the PING answers after the adapter's subscriptions.
  // An unreachable Redis does not hold the start: ioredis subscribes again once it is back.
  const ready = redisSub
    ? new Promise<void>((resolve) => {
        redisSub.ping().then(
          () => resolve(),
          () => resolve(),
        );
        redisSub.once('error', (error: Error) => {
          deps.logger.warn({ err: error.message }, 'realtime: redis not reachable yet; live events resume when it is');
          resolve();
        });
      })
    : Promise.resolve();

  io.use((socket, next) => {
    authenticateSocket(socket, deps).then(
      (caller) => {
        socket.data.caller = caller;
        next();
      },
      (error: Error) => next(error),
    );
  });
  // While closing, sockets that go announce nothing (no presence read across a closing adapter).
  let closing = false;
  const isClosing = () => closing;
  io.on('connection', (socket) => onConnection(io, socket, deps, isClosing));
  attachWidgetNamespace(io, deps, isClosing);

  // With the Redis bus the emitter already reaches this server through its adapter.
  const relays = deps.events.reachesSockets
    ? []
    : [deps.events.subscribe((event) => emitToRooms(io, event)), deps.events.subscribeDisconnects((cut) => disconnectRooms(io, cut))];
  const unsubscribe = () => relays.forEach((stop) => stop());

  return {
    io,
    ready,
    close: async () => {
      closing = true;
      unsubscribe();
      io.disconnectSockets(true);
      await Promise.allSettled([...io._nsps.values()].map(async (nsp) => nsp.adapter.close()));
      io.engine.close();
      if (redisSub) await closeRedis(redisSub);
      if (redis) await closeRedis(redis);
    },
  };
}

function emitToRooms(io: Server, event: ParleyEvent): void {
  // io.to([]) would broadcast to every socket.
  if (event.rooms.length) (event.namespace ? io.of(event.namespace) : io).to(event.rooms).emit(event.name, event.payload);
}

function disconnectRooms(io: Server, cut: SocketCut): void {
  // io.in([]) would select every socket.
  if (cut.rooms.length)
    (cut.namespace ? io.of(cut.namespace) : io)
      .in(cut.rooms)
      .except(cut.except ?? [])
      .disconnectSockets(true);
}

/** The token-check error a client sees in `connect_error`: the REST 401 text. */
function refusal(detail: string): Error & { data: { detail: string } } {
  return Object.assign(new Error(detail), { data: { detail } });
}

async function authenticateSocket(socket: Socket, deps: Deps): Promise<Caller> {
  const token: unknown = socket.handshake.auth?.token;
  if (typeof token !== 'string' || !token.trim()) throw refusal('Not authenticated');
  // The REST check itself, fed the token as a bearer header, so a socket is accepted exactly
  // when a request with the same token would be (HS256, revoked jti, user exists).
  const bearer = { get: (name: string) => (name.toLowerCase() === 'authorization' ? `Bearer ${token}` : '') } as unknown as Context;
  try {
    return await authenticate(bearer, deps.db, deps.config.jwtSecret);
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) throw refusal(String(error.body.detail));
    deps.logger.error({ err: error }, 'socket authentication failed');
    throw refusal('Internal server error');
  }
}

function onConnection(
  io: Server<any, any, any, any>,
  socket: Socket<Record<string, never>, Record<string, never>, Record<string, never>, SocketData>,
  deps: Deps,
  closing: () => boolean,
): void {
  const { caller } = socket.data;
  // The session room lets logout cut exactly this token's sockets; the user room lets member
  // removal cut all of the user's (core/events/bus.ts `disconnect`).
  socket.join([rooms.user(caller.userId), rooms.session(caller.jti)]);
  // A member who must set up two-factor first gets none of the business's events (as its routes refuse them).
  if (caller.member && !caller.twoFactorSetupRequired) socket.join(rooms.business(caller.member.businessId));
  disconnectAtExpiry(socket, caller.exp);
  // Typing and who is viewing (api/realtime-signals.ts).
  const signals = attachDashboardSignals(io, socket, deps, closing);

  socket.on('join_conversation', (raw: unknown, ack?: unknown) => {
    const reply = replyOf(ack);
    const parsed = joinPayload.safeParse(raw);
    if (!parsed.success) return reply({ ok: false, detail: 'conversation_id must be a UUID' });
    const conversationId = parsed.data.conversation_id;
    // Membership is read again, not taken from the connection: a member removed since
    // connecting may not follow new conversations.
    joinableConversation(deps, caller.userId, conversationId).then(
      async (joined) => {
        if (!joined) return reply({ ok: false, detail: 'Conversation not found' });
        await socket.join(rooms.conversation(conversationId));
        // Acknowledged once joined; the presence that follows includes this socket.
        reply({ ok: true });
        await signals.joined(conversationId, joined);
      },
      (error: unknown) => {
        deps.logger.error({ err: error, conversation_id: conversationId }, 'join_conversation failed');
        reply({ ok: false, detail: 'Internal server error' });
      },
    );
  });

  socket.on('leave_conversation', (raw: unknown, ack?: unknown) => {
    const reply = replyOf(ack);
    const parsed = joinPayload.safeParse(raw);
    if (!parsed.success) return reply({ ok: false, detail: 'conversation_id must be a UUID' });
    const conversationId = parsed.data.conversation_id;
    Promise.resolve(socket.leave(rooms.conversation(conversationId))).then(async () => {
      reply({ ok: true });
      await signals.left(conversationId);
    });
  });
}
