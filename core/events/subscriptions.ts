/**
 * Which subscriber handles which domain events: the one list of every reaction to a change.
 * A leaf module (no imports but types), so recording an event (core/events/domain.ts) knows
 * whether anything will handle it without loading the subscribers, and the registry
 * (core/events/subscribers.ts) checks that each subscriber file handles exactly its line here.
 * Subscribers run in this order for the events of one batch.
 */
import type { DomainEventType } from './domain-types.ts';

export const subscriptions = {
  /** The out-of-hours reply to a customer message (core/subscribers/out-of-hours.ts). Before auto-assignment: both meet on the conversation. */
  out_of_hours: ['message.created'],
  /** The AI agent's answer to a customer message (core/subscribers/ai-agent.ts). */
  ai_agent: ['message.created'],
  /** Auto-assignment of waiting conversations (core/subscribers/auto-assign.ts). */
  auto_assign: [
    'conversation.created',
    'conversation.updated',
    'conversation.opened',
    'conversation.resolved',
    'conversation.closed',
    'conversation.assigned',
    'conversation.woken',
    'handoff.requested',
    'member.status_changed',
    'member.removed',
    'settings.changed',
  ],
  /** SLA due times worked out again (core/subscribers/sla.ts). */
  sla: ['message.created', 'conversation.created', 'conversation.updated', 'conversation.labelled', 'settings.changed'],
  /** The customer asked for a rating once resolved (core/subscribers/csat.ts). */
  csat: ['conversation.resolved'],
  /** The mentioned member's mail, when they may see the conversation (core/subscribers/mention-mail.ts). */
  mention_mail: ['mention.created'],
  /** Settings changes in the audit log, with before and after (core/subscribers/audit-log.ts). */
  audit_log: ['settings.changed'],
  /** The business's webhook endpoints (core/subscribers/webhooks.ts). */
  webhooks: [
    'conversation.created',
    'conversation.updated',
    'conversation.assigned',
    'message.created',
    'message.updated',
    'handoff.requested',
    'customer.updated',
    'customer.merged',
    'customer.erased',
  ],
} as const satisfies Record<string, readonly DomainEventType[]>;

export type SubscriberName = keyof typeof subscriptions;

/** Every event type some subscriber handles (the others are recorded already handled). */
export const handledTypes: readonly DomainEventType[] = [...new Set(Object.values(subscriptions).flat())];
