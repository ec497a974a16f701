/**
 * Typing and presence: what dashboards and visitors tell each other live, relayed and never
 * stored (core/events/catalogue.ts `SignalPayloads`, `ClientMessages`).
 *
 * - A dashboard socket that joined a conversation (`join_conversation`, checked against its
 *   business) is a viewer of it: every join, leave and disconnect sends the conversation's
 *   dashboards `conversation_presence`, read from the sockets in the conversation's room on
 *   every node (Socket.IO `fetchSockets`, through the Redis adapter when there is one).
 * - `typing {conversation_id, typing, private?}` from a dashboard is relayed only for a
 *   conversation that socket joined: to the conversation's other dashboards, and, unless it is
 *   a note (`private`), to the visitor of a widget conversation (as `typing`, without a name).
 * - `typing {typing}` from a visitor's `/widget` socket goes to the dashboards of the visitor's
 *   own current conversation.
 *
 * A socket's `typing: true` is relayed at most once per TYPING_RELAY_MIN_MS (config) per conversation
 * (clients repeat it every TYPING_REPEAT_MS); a stop is relayed when a start was, and a socket
 * that leaves or disconnects while typing sends its stop. Everything goes through the same
 * io/adapter as the live events, so it reaches sockets on every web node.
 */
import type { Server, Socket } from 'socket.io';
import { z } from 'zod';
import { sql } from '../core/adapters/postgres/db.ts';
import type { Deps } from '../core/deps.ts';
import type { Visitor } from '../core/commands/visitors.ts';
import { currentConversationId } from '../core/reads/visitor-messages.ts';
import { rooms } from '../core/events/bus.ts';
import { signalEvent, type Signal } from '../core/events/catalogue.ts';
import { widgetChannelType } from '../connectors/index.ts';
import type { Caller } from './caller.ts';

type Reply = (answer: { ok: boolean; detail?: string }) => void;

/** The acknowledgement callback a client passed, or a no-op. */
export const replyOf = (ack: unknown): Reply => (typeof ack === 'function' ? (ack as Reply) : () => {});

/** Emits a catalogue signal to its rooms on every node, except the sockets (or rooms) in `except`. */
export function emitSignal(io: Server<any, any, any, any>, signal: Signal, except: string[] = []): void {
  // io.to([]) would reach every socket.
  if (!signal.rooms.length) return;
  const target = (signal.namespace ? io.of(signal.namespace) : io).to(signal.rooms).except(except);
  (signal.volatile ? target.volatile : target).emit(signal.name, signal.payload);
}

const now = () => new Date().toISOString();

const dashboardTyping = z.object({ conversation_id: z.uuid(), typing: z.boolean(), private: z.boolean().optional() });
const visitorTyping = z.object({ typing: z.boolean() });

/** What a dashboard socket learnt of a conversation when it joined. */
type Joined = { businessId: string; visitorCustomerId: string | null };

/**
 * Over `conversations c` and `team_members m` (joined on the business, active): the member may
 * see the conversation now. A business that requires two-factor sign-in shows nothing to a
 * member without it; under team-scoped visibility (core/domain/team-visibility.ts) an agent sees
 * only their teams' conversations and those assigned to them.
 */
const memberMaySee = sql.fragment`
  not exists (select 1 from businesses b join users u on u.id = m.user_id where b.id = c.business_id and b.require_two_factor and u.two_factor_secret is null)
  and (m.role <> 'agent' or not coalesce((select s.team_visibility from assignment_settings s where s.business_id = c.business_id), false)
    or c.assignee_id = m.user_id
    or c.team_id in (select tm.team_id from team_memberships tm where tm.business_id = c.business_id and tm.member_id = m.id))`;

/** The conversation a member may join, with what typing needs; null when not theirs. */
export async function joinableConversation(deps: Deps, userId: string, conversationId: string): Promise<Joined | null> {
  const row = await deps.db.maybeOne(sql.type(z.object({ business_id: z.string(), customer_id: z.string().nullable(), channel_type: z.string() }))`
    select c.business_id, c.customer_id, c.channel_type from conversations c
    join team_members m on m.business_id = c.business_id and m.user_id = ${userId} and m.is_active
    where c.id = ${conversationId} and ${memberMaySee}`);
  if (!row) return null;
  return { businessId: row.business_id, visitorCustomerId: row.channel_type === widgetChannelType ? row.customer_id : null };
}

/** Which of `userIds` may see the conversation now (one query). */
async function usersWhoMaySee(deps: Deps, conversationId: string, userIds: string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await deps.db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    select m.user_id from conversations c
    join team_members m on m.business_id = c.business_id and m.is_active and m.user_id = any(${sql.array(userIds, 'uuid')})
    where c.id = ${conversationId} and ${memberMaySee}`);
  return new Set(rows);
}

type RoomSocket = { id: string; data: unknown; leave: (room: string) => unknown };

/**
 * The dashboard sockets in the conversation's room (on every node) whose member may still see
 * it; those who lost sight since they joined (the conversation moved to another team, team
 * visibility turned on, they left the team or the business) are taken out of the room here, so
 * no typing or presence reaches them (issue #36 item 6).
 */
async function roomViewers(io: Server<any, any, any, any>, deps: Deps, conversationId: string): Promise<{ socket: RoomSocket; caller: Caller }[]> {
  const room = rooms.conversation(conversationId);
  const sockets = (await io.in(room).fetchSockets()) as RoomSocket[];
  const withCaller = sockets.flatMap((socket) => {
    const caller = (socket.data as { caller?: Caller }).caller;
    return caller ? [{ socket, caller }] : [];
  });
  const allowed = await usersWhoMaySee(deps, conversationId, [...new Set(withCaller.map((s) => s.caller.userId))]);
  for (const { socket, caller } of withCaller) if (!allowed.has(caller.userId)) void socket.leave(room);
  return withCaller.filter(({ caller }) => allowed.has(caller.userId));
}

/**
 * Emits a signal of a conversation to the room's sockets whose member may still see it (not to
 * the sockets in `except`): visibility is checked at every emit, not only when a socket joined.
 */
async function emitToViewers(io: Server<any, any, any, any>, deps: Deps, conversationId: string, signal: Signal, except: string[] = []): Promise<void> {
  const viewers = await roomViewers(io, deps, conversationId);
  const ids = viewers.map((v) => v.socket.id).filter((id) => !except.includes(id));
  if (ids.length) emitSignal(io, { ...signal, rooms: ids });
}

export type DashboardSignals = {
  /** After the socket joined the conversation's room. */
  joined: (conversationId: string, joined: Joined) => Promise<void>;
  /** After the socket left the conversation's room. */
  left: (conversationId: string) => Promise<void>;
};

/**
 * Wires `typing` and presence for one dashboard socket. `closing()` is true while the server
 * shuts down: its disconnects then announce nothing.
 */
export function attachDashboardSignals(
  io: Server<any, any, any, any>,
  socket: Socket<any, any, any, { caller: Caller }>,
  deps: Deps,
  closing: () => boolean,
): DashboardSignals {
  const caller = socket.data.caller;
  const member = caller.member;
  const joinedConversations = new Map<string, Joined>();
  const typing = new Map<string, { private: boolean; relayedAt: number }>();

  const who = () => ({ user_id: caller.userId, member_id: member?.id ?? '', name: caller.fullName });

  // Relays of this socket go out in the order it sent them (each awaits the room's visibility check).
  let relays: Promise<void> = Promise.resolve();
  const inOrder = (relay: () => Promise<void>) => {
    relays = relays.then(relay).catch((error: unknown) => {
      if (!closing()) deps.logger.warn({ err: (error as Error).message }, 'typing not relayed');
    });
    return relays;
  };

  function relayTyping(conversationId: string, joined: Joined, state: { typing: boolean; private: boolean }): void {
    const payload = { conversation_id: conversationId, business_id: joined.businessId, at: now() };
    const signal = signalEvent('typing', { ...payload, sender_type: 'agent', ...who(), typing: state.typing, private: state.private });
    void inOrder(() => emitToViewers(io, deps, conversationId, signal, [socket.id]));
  }

  function relayToVisitor(conversationId: string, joined: Joined, isTyping: boolean): void {
    if (!joined.visitorCustomerId) return;
    const customerId = joined.visitorCustomerId;
    void inOrder(async () =>
      emitSignal(io, signalEvent('visitor_typing', { conversation_id: conversationId, sender_type: 'agent', typing: isTyping }, customerId)),
    );
  }

  /** This socket lost sight of the conversation: out of its room, its typing stopped, presence told. */
  async function lostSight(conversationId: string): Promise<void> {
    const joined = joinedConversations.get(conversationId);
    typing.delete(conversationId);
    joinedConversations.delete(conversationId);
    await socket.leave(rooms.conversation(conversationId));
    if (joined) await announcePresence(conversationId, joined.businessId);
  }

  /** Relays this socket's stop in a conversation it was typing in. */
  function stopTyping(conversationId: string): void {
    const state = typing.get(conversationId);
    const joined = joinedConversations.get(conversationId);
    typing.delete(conversationId);
    if (!state || !joined) return;
    relayTyping(conversationId, joined, { typing: false, private: state.private });
    if (!state.private) relayToVisitor(conversationId, joined, false);
  }

  async function announcePresence(conversationId: string, businessId: string): Promise<void> {
    if (closing()) return;
    try {
      // Only the sockets whose member may still see it: they are the viewers, and the ones told.
      const sockets = await roomViewers(io, deps, conversationId);
      const viewers = new Map<string, { user_id: string; member_id: string; name: string }>();
      for (const { caller: c } of sockets) {
        if (c.member?.businessId !== businessId || viewers.has(c.userId)) continue;
        viewers.set(c.userId, { user_id: c.userId, member_id: c.member.id, name: c.fullName });
      }
      const list = [...viewers.values()].sort((a, b) => a.name.localeCompare(b.name) || a.user_id.localeCompare(b.user_id));
      const ids = sockets.map((v) => v.socket.id);
      if (ids.length)
        emitSignal(io, {
          ...signalEvent('conversation_presence', { conversation_id: conversationId, business_id: businessId, viewers: list, at: now() }),
          rooms: ids,
        });
    } catch (error) {
      // A node that does not answer in time: this announcement is lost, the next one corrects it.
      if (!closing()) deps.logger.warn({ err: (error as Error).message, conversation_id: conversationId }, 'presence not announced');
    }
  }

  socket.on('typing', (raw: unknown, ack?: unknown) => {
    const reply = replyOf(ack);
    const parsed = dashboardTyping.safeParse(raw);
    if (!parsed.success) return reply({ ok: false, detail: 'conversation_id must be a UUID and typing a boolean' });
    const { conversation_id: conversationId, typing: isTyping } = parsed.data;
    const isPrivate = parsed.data.private ?? false;
    // Only a conversation this socket joined, i.e. one of its business (join_conversation checked it).
    const joined = joinedConversations.get(conversationId);
    if (!joined || !socket.rooms.has(rooms.conversation(conversationId))) return reply({ ok: false, detail: 'Join the conversation first' });
    if (!isTyping) {
      stopTyping(conversationId);
      return reply({ ok: true });
    }
    const previous = typing.get(conversationId);
    const at = Date.now();
    if (previous && previous.private === isPrivate && at - previous.relayedAt < deps.config.TYPING_RELAY_MIN_MS) return reply({ ok: true });
    typing.set(conversationId, { private: isPrivate, relayedAt: at });
    // The sender may have lost sight of it since joining: checked at every relay, before anyone hears it.
    void inOrder(async () => {
      if (!(await joinableConversation(deps, caller.userId, conversationId))) {
        await lostSight(conversationId);
        return reply({ ok: false, detail: 'Conversation not found' });
      }
      relayTyping(conversationId, joined, { typing: true, private: isPrivate });
      if (!isPrivate) relayToVisitor(conversationId, joined, true);
      // From a reply to a note: the visitor's indicator goes at once.
      else if (previous && !previous.private) relayToVisitor(conversationId, joined, false);
      reply({ ok: true });
    });
  });

  // Rooms are gone by `disconnect`: remember which conversations to announce.
  let leaving: [string, Joined][] = [];
  socket.on('disconnecting', () => {
    for (const conversationId of typing.keys()) if (!closing()) stopTyping(conversationId);
    leaving = [...joinedConversations];
  });
  socket.on('disconnect', () => {
    for (const [conversationId, joined] of leaving) void announcePresence(conversationId, joined.businessId);
    joinedConversations.clear();
  });

  return {
    joined: async (conversationId, joined) => {
      joinedConversations.set(conversationId, joined);
      await announcePresence(conversationId, joined.businessId);
    },
    left: async (conversationId) => {
      const joined = joinedConversations.get(conversationId);
      if (!joined) return;
      stopTyping(conversationId);
      joinedConversations.delete(conversationId);
      await announcePresence(conversationId, joined.businessId);
    },
  };
}

/** Wires `typing` for one visitor's `/widget` socket: to the dashboards of the visitor's own current conversation. */
export function attachVisitorSignals(
  io: Server<any, any, any, any>,
  socket: Socket<any, any, any, { visitor: Visitor }>,
  deps: Deps,
  closing: () => boolean,
): void {
  const visitor = socket.data.visitor;
  let state: { conversationId: string | null; relayedAt: number } | null = null;

  // To the dashboards that may still see the conversation, in the order the visitor typed.
  let relays: Promise<void> = Promise.resolve();
  const relay = (conversationId: string, isTyping: boolean) => {
    const signal = signalEvent('typing', {
      conversation_id: conversationId,
      business_id: visitor.businessId,
      sender_type: 'customer',
      customer_id: visitor.customerId,
      typing: isTyping,
      at: now(),
    });
    relays = relays
      .then(() => emitToViewers(io, deps, conversationId, signal))
      .catch((error: unknown) => {
        if (!closing()) deps.logger.warn({ err: (error as Error).message }, 'visitor typing not relayed');
      });
  };

  socket.on('typing', (raw: unknown, ack?: unknown) => {
    const reply = replyOf(ack);
    const parsed = visitorTyping.safeParse(raw);
    if (!parsed.success) return reply({ ok: false, detail: 'typing must be a boolean' });
    if (!parsed.data.typing) {
      if (state?.conversationId) relay(state.conversationId, false);
      state = null;
      return reply({ ok: true });
    }
    const at = Date.now();
    if (state && at - state.relayedAt < deps.config.TYPING_RELAY_MIN_MS) return reply({ ok: true });
    // Claimed before the read, so a burst reads once.
    const mine = { conversationId: state?.conversationId ?? null, relayedAt: at };
    state = mine;
    currentConversationId(deps.db, visitor).then(
      (conversationId) => {
        if (state !== mine) return reply({ ok: true }); // stopped (or newer) meanwhile
        if (!conversationId) {
          state = null;
          return reply({ ok: false, detail: 'No conversation yet' });
        }
        // The conversation moved on (closed, a new one): the old one's dashboards hear the stop.
        if (mine.conversationId && mine.conversationId !== conversationId) relay(mine.conversationId, false);
        mine.conversationId = conversationId;
        relay(conversationId, true);
        reply({ ok: true });
      },
      (error: unknown) => {
        if (state === mine) state = null;
        deps.logger.warn({ err: (error as Error).message }, 'visitor typing not relayed');
        reply({ ok: false, detail: 'Internal server error' });
      },
    );
  });

  socket.on('disconnecting', () => {
    if (state?.conversationId && !closing()) relay(state.conversationId, false);
    state = null;
  });
}
