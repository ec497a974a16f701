/**
 * The catalogue of domain events: what a command changed, recorded in its own transaction
 * (core/events/domain.ts recordEvents) and handled after commit by the subscribers
 * (core/events/subscriptions.ts). Each type's `data` says what changed; ids are uuids unless
 * named otherwise. Live events (catalogue.ts) are what dashboards see; these are what the
 * system reacts to and what a conversation's history shows (GET /conversations/{id}/events).
 */
export type DomainEventData = {
  /** A conversation opened (by a customer's first message, an agent, or a template). */
  'conversation.created': Record<string, never>;
  /** Anything a list entry shows changed (status, assignee, labels, priority, last message…). */
  'conversation.updated': Record<string, never>;
  /** `assignee_id`: the new assignee's user id (null: unassigned); `assigned_by` null when automatic. */
  'conversation.assigned': { assignee_id: string | null; assigned_by: string | null; assignee_name?: string | null };
  'conversation.resolved': Record<string, never>;
  'conversation.closed': Record<string, never>;
  /** Reopened (by an agent, or by the customer writing again). */
  'conversation.opened': Record<string, never>;
  /** `until`: ISO time it wakes; null: when the customer writes. */
  'conversation.snoozed': { until: string | null };
  'conversation.woken': Record<string, never>;
  /** Label names added and removed. */
  'conversation.labelled': { added: string[]; removed: string[] };
  'conversation.prioritized': { priority: string | null };
  'conversation.team_changed': { team_id: string | null; team_name?: string | null };
  'handoff.requested': { reason: string };
  /** `sender_type` when the recorder knew it. */
  'message.created': { message_id: string; sender_type?: string };
  'message.updated': { message_id: string };
  'mention.created': { mention_id: string; message_id: string };
  'customer.updated': { customer_id: string };
  'customer.merged': { customer_id: string; from_customer_id?: string };
  'customer.erased': { customer_id: string };
  /** `section`: which settings (assignment, business_hours, sla, csat, ai, …); before and after as the API shows them. */
  'settings.changed': { section: string; target_id?: string | null; before: unknown; after: unknown };
  'member.status_changed': { user_id: string; status: string };
  'member.removed': { user_id: string };
};

export type DomainEventType = keyof DomainEventData;

/** Who made the change. `name`: as shown in history and the audit log. */
export type Actor =
  | { type: 'member'; userId: string; name?: string }
  | { type: 'api_key'; apiKeyId: string; userId: string; name?: string }
  | { type: 'customer'; customerId?: string }
  | { type: 'ai' }
  | { type: 'system'; name?: string };

export const systemActor: Actor = { type: 'system' };

/** One event as a command records it. */
export type DomainEventInput = {
  [T in DomainEventType]: { type: T; businessId: string; conversationId?: string | null; actor?: Actor; data: DomainEventData[T] };
}[DomainEventType];
