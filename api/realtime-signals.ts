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
import { currentConversationId, type Visitor } from '../core/commands/visitors.ts';
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

/** The conversation a member may join, with what typing needs; null when not theirs. */
export async function joinableConversation(deps: Deps, userId: string, conversationId: string): Promise<Joined | null> {
  const row = await deps.db.maybeOne(sql.type(z.object({ business_id: z.string(), customer_id: z.string().nullable(), channel_type: z.string() }))`
    select c.business_id, c.customer_id, c.channel_type from conversations c
    join team_members m on m.business_id = c.business_id and m.user_id = ${userId} and m.is_active
    join businesses b on b.id = c.business_id
    join users u on u.id = m.user_id
    left join assignment_settings s on s.business_id = c.business_id
    -- A business that requires two-factor sign-in shows nothing to a member without it.
    where c.id = ${conversationId} and not (b.require_two_factor and u.two_factor_secret is null)
      -- Team-scoped visibility (core/domain/team-visibility.ts): an agent joins only what they may see.
      and (not coalesce(m.role = 'agent' and s.team_visibility, false) or c.assignee_id = m.user_id
        or c.team_id in (select tm.team_id from team_memberships tm where tm.business_id = c.business_id and tm.member_id = m.id))`);
  if (!row) return null;
  return { businessId: row.business_id, visitorCustomerId: row.channel_type === widgetChannelType ? row.customer_id : null };
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

  function relayTyping(conversationId: string, joined: Joined, state: { typing: boolean; private: boolean }): void {
    const payload = { conversation_id: conversationId, business_id: joined.businessId, at: now() };
    emitSignal(io, signalEvent('typing', { ...payload, sender_type: 'agent', ...who(), typing: state.typing, private: state.private }), [socket.id]);
  }

  function relayToVisitor(conversationId: string, joined: Joined, isTyping: boolean): void {
    if (!joined.visitorCustomerId) return;
    emitSignal(io, signalEvent('visitor_typing', { conversation_id: conversationId, sender_type: 'agent', typing: isTyping }, joined.visitorCustomerId));
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
      const sockets = await io.in(rooms.conversation(conversationId)).fetchSockets();
      const viewers = new Map<string, { user_id: string; member_id: string; name: string }>();
      for (const s of sockets) {
        const c = (s.data as { caller?: Caller }).caller;
        // Only members of the conversation's business ever pass join_conversation; checked again.
        if (c?.member?.businessId !== businessId || viewers.has(c.userId)) continue;
        viewers.set(c.userId, { user_id: c.userId, member_id: c.member.id, name: c.fullName });
      }
      const list = [...viewers.values()].sort((a, b) => a.name.localeCompare(b.name) || a.user_id.localeCompare(b.user_id));
      emitSignal(io, signalEvent('conversation_presence', { conversation_id: conversationId, business_id: businessId, viewers: list, at: now() }));
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
    relayTyping(conversationId, joined, { typing: true, private: isPrivate });
    if (!isPrivate) relayToVisitor(conversationId, joined, true);
    // From a reply to a note: the visitor's indicator goes at once.
    else if (previous && !previous.private) relayToVisitor(conversationId, joined, false);
    reply({ ok: true });
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

  const relay = (conversationId: string, isTyping: boolean) =>
    emitSignal(
      io,
      signalEvent('typing', {
        conversation_id: conversationId,
        business_id: visitor.businessId,
        sender_type: 'customer',
        customer_id: visitor.customerId,
        typing: isTyping,
        at: now(),
      }),
    );

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
