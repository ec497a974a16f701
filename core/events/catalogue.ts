/**
 * Every live event, in one catalogue: its payload type and the rooms that receive it. Events are
 * built only by liveEvent() (or the loaders of core/events/live.ts that call it), so a payload
 * that does not fit its event fails type-checking, and no publisher chooses rooms by hand.
 *
 * Payloads keep the ids, state and `at` (ISO 8601 UTC) every event has always carried; the
 * message and conversation events add the object itself, built by the REST presenter, so a
 * dashboard gets from an event exactly what GET returns (README "Realtime").
 */
import type { ConversationListItem } from '../presenters/conversation.ts';
import type { Customer } from '../presenters/customer.ts';
import type { Message } from '../presenters/message.ts';
import type { Mention } from '../presenters/mention.ts';
import type { VisitorMessage } from '../presenters/visitor-message.ts';
import { rooms, WIDGET_NAMESPACE } from './bus.ts';

type Ids = { business_id: string; at: string };
type ConversationIds = Ids & { conversation_id: string };
type MessageIds = ConversationIds & { message_id: string };

/** Payload of each event, by catalogue key. */
export type EventPayloads = {
  agent_status_changed: Ids & { user_id: string; member_id: string; status: 'live' | 'away' | 'offline' };
  /** `at`: when it was assigned; `assigned_by`: the member's user id, null when assigned automatically (auto-assignment). */
  conversation_assigned: ConversationIds & { assignee_id: string; assigned_by: string | null };
  /** `conversation`: the entry GET /conversations lists; `at`: its `created_at`. */
  conversation_created: ConversationIds & { conversation: ConversationListItem };
  /** `conversation`: the entry GET /conversations lists; `at`: its `updated_at`. */
  conversation_updated: ConversationIds & Pick<ConversationListItem, 'status' | 'assignee_id' | 'assigned_at'> & { conversation: ConversationListItem };
  /** `message`: as GET …/messages shows it; `at`: its `created_at`. */
  message_created: MessageIds & Pick<Message, 'sender_type'> & { message: Message };
  /** `message`: as GET …/messages shows it (with the new `delivery_status`). */
  message_updated: MessageIds & Pick<Message, 'delivery_status'> & { message: Message };
  /** A scheduled reply was cancelled before it went out (the message is gone); `at`: when. */
  message_deleted: MessageIds;
  handoff_requested: ConversationIds & { reason: string };
  /** `status`: the channel's registration status. */
  channel_updated: Ids & { channel_id: string; status: 'pending' | 'connected' | 'error' };
  /**
   * A member was named in a private note; only to that member (their user room). `mention`: as
   * GET /api/v1/mentions lists it; `at`: its `created_at`.
   */
  mention_created: MessageIds & { mention_id: string; member_id: string; user_id: string; mention: Mention };
  /**
   * Conversations left this member's view under team-scoped visibility (the setting on, the
   * member an agent; docs/decisions.md#teams-and-team-scoped-visibility); only to that member
   * (their user room). `conversation_id`: the one that left (it moved to another team, or to no
   * team); null when any number may have left at once (the member left a team or it was deleted,
   * or the setting was switched on): what the member shows is to be read again. `at`: when.
   */
  conversation_hidden: Ids & { user_id: string; conversation_id: string | null };
  /** A customer's record was edited (PATCH /customers/{id}). `customer_id`: its uuid; `customer`: as GET /customers/{id} shows it. */
  customer_updated: Ids & { customer_id: string; customer: Customer };
  /** `from_customer_id` (a uuid) was merged into `customer_id`: its conversations are the latter's now. */
  customer_merged: Ids & { customer_id: string; from_customer_id: string; customer: Customer; conversations_moved: number };
  /** The customer's erasure was requested: the record is gone from every list; its data follows in a job. */
  customer_erased: Ids & { customer_id: string };
  /** A website visitor's message as the visitor API shows it; sent as `message_created` in `/widget`. */
  visitor_message_created: VisitorMessage;
  /**
   * An SLA target of a conversation passed its due time unmet (or was met after it), once per breach
   * (core/commands/sla.ts). `at`: when it was recorded; `due_at`: the target's due time.
   */
  sla_breached: ConversationIds & { breach_id: string; sla_policy_id: string; target: 'first_response' | 'next_response' | 'resolution'; due_at: string };
  /**
   * A setting every member reads changed (`setting`: which list): open apps read it again, so a
   * label the owner just made is in every agent's label picker without a reload. `at`: when.
   */
  settings_changed: Ids & { setting: 'labels' | 'teams' };
};

export type EventKey = keyof EventPayloads;

/** Where an event goes. `A` is who receives it when the payload does not say (a visitor's customer id). */
type EventRoute<P, A> = {
  rooms: (payload: P, audience: A) => string[];
  /** The name on the wire, when it is not the key. */
  name?: string;
  /** Socket.IO namespace; default `/` (dashboards). */
  namespace?: string;
};

const toBusiness = { rooms: (p: { business_id: string }) => [rooms.business(p.business_id)] };
const toConversation = {
  rooms: (p: { business_id: string; conversation_id: string }) => [rooms.business(p.business_id), rooms.conversation(p.conversation_id)],
};

const catalogue: { [K in EventKey]: EventRoute<EventPayloads[K], K extends 'visitor_message_created' ? string : undefined> } = {
  agent_status_changed: toBusiness,
  conversation_assigned: { rooms: (p) => [rooms.user(p.assignee_id)] },
  conversation_created: toBusiness,
  conversation_updated: toBusiness,
  message_created: toConversation,
  message_updated: toConversation,
  message_deleted: toConversation,
  handoff_requested: toBusiness,
  channel_updated: toBusiness,
  mention_created: { rooms: (p) => [rooms.user(p.user_id)] },
  conversation_hidden: { rooms: (p) => [rooms.user(p.user_id)] },
  customer_updated: toBusiness,
  customer_merged: toBusiness,
  customer_erased: toBusiness,
  visitor_message_created: { name: 'message_created', namespace: WIDGET_NAMESPACE, rooms: (_p, customerId) => [rooms.visitor(customerId)] },
  sla_breached: toBusiness,
  settings_changed: toBusiness,
};

/** An event built from the catalogue; what the bus carries (core/events/bus.ts ParleyEvent), typed. */
export type LiveEvent = {
  [K in EventKey]: { name: string; rooms: string[]; payload: EventPayloads[K]; namespace?: string };
}[EventKey];

type AudienceArgs<K extends EventKey> = K extends 'visitor_message_created' ? [customerId: string] : [];

export function liveEvent<K extends EventKey>(key: K, payload: EventPayloads[K], ...[audience]: AudienceArgs<K>): LiveEvent {
  // The signature matched the payload to this entry; here it is any entry.
  const route = catalogue[key] as EventRoute<EventPayloads[K], string | undefined>;
  const event = { name: route.name ?? key, rooms: route.rooms(payload, audience), payload } as LiveEvent;
  return route.namespace ? { ...event, namespace: route.namespace } : event;
}

/**
 * Signals: what sockets say to each other, relayed by the realtime layer (api/realtime-signals.ts)
 * straight through Socket.IO (whose Redis adapter carries them to every web node). Never
 * stored, never on the event bus (no worker, no webhook sees them). Both are sent as ordinary
 * (not volatile) emits: a volatile one is dropped whenever the socket is still writing the one
 * before, which under load lost stops as well as starts; typing is small and throttled. Each is answered to a conversation the sender may see: its own business's for a
 * dashboard (after `join_conversation`), its own current conversation for a visitor.
 */
export type SignalPayloads = {
  /**
   * Someone is typing (or stopped: `typing: false`) in a conversation, to the dashboards that
   * joined it (the sender's own socket excluded). A visitor: `sender_type: 'customer'` with the
   * customer's id. An agent: `sender_type: 'agent'` with who it is and `private` (a note, never
   * shown to the visitor). Receivers hide it after TYPING_EXPIRES_MS without a new one.
   */
  typing: { conversation_id: string; business_id: string; typing: boolean; at: string } & (
    | { sender_type: 'customer'; customer_id: string }
    | { sender_type: 'agent'; user_id: string; member_id: string; name: string; private: boolean }
  );
  /**
   * The members viewing a conversation now (their dashboards joined it), once per person, by
   * name; to the dashboards that joined it, each time someone joins, leaves or disconnects.
   */
  conversation_presence: { conversation_id: string; business_id: string; viewers: { user_id: string; member_id: string; name: string }[]; at: string };
  /**
   * An agent typing a reply (never a note) in the visitor's conversation; sent as `typing` in
   * `/widget`, to the visitor's room. Says nothing of who: the visitor API names no agent.
   */
  visitor_typing: { conversation_id: string; sender_type: 'agent'; typing: boolean };
};

/** What clients send (client → server), by namespace; each may take an acknowledgement `{ok, detail?}`. */
export type ClientMessages = {
  '/': {
    /** Follow a conversation of the caller's business (its events, its signals) and be counted as viewing it. */
    join_conversation: { conversation_id: string };
    leave_conversation: { conversation_id: string };
    /** The agent types (`private: true`: a note) or stopped, in a joined conversation. */
    typing: { conversation_id: string; typing: boolean; private?: boolean };
  };
  '/widget': {
    /** The visitor types or stopped, in their current conversation. */
    typing: { typing: boolean };
  };
};

/** Clients send `typing: true` at most every TYPING_REPEAT_MS while typing; receivers hide it TYPING_EXPIRES_MS after the last. */
export const TYPING_REPEAT_MS = 2500;
export const TYPING_EXPIRES_MS = 6000;

export type SignalKey = keyof SignalPayloads;

const signalRoutes: { [K in SignalKey]: EventRoute<SignalPayloads[K], K extends 'visitor_typing' ? string : undefined> & { volatile: boolean } } = {
  typing: { rooms: (p) => [rooms.conversation(p.conversation_id)], volatile: false },
  conversation_presence: { rooms: (p) => [rooms.conversation(p.conversation_id)], volatile: false },
  visitor_typing: { name: 'typing', namespace: WIDGET_NAMESPACE, rooms: (_p, customerId) => [rooms.visitor(customerId)], volatile: false },
};

/** A signal built from the catalogue, for the realtime layer to emit. */
export type Signal = { name: string; rooms: string[]; namespace?: string; volatile: boolean; payload: SignalPayloads[SignalKey] };

type SignalAudience<K extends SignalKey> = K extends 'visitor_typing' ? [customerId: string] : [];

export function signalEvent<K extends SignalKey>(key: K, payload: SignalPayloads[K], ...[audience]: SignalAudience<K>): Signal {
  const route = signalRoutes[key] as EventRoute<SignalPayloads[K], string | undefined> & { volatile: boolean };
  const built: Signal = { name: route.name ?? key, rooms: route.rooms(payload, audience), volatile: route.volatile, payload };
  return route.namespace ? { ...built, namespace: route.namespace } : built;
}
