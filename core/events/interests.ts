/**
 * When a subscriber has something to do for a business: its interest, an SQL condition read in
 * the statement that records the events (core/events/domain.ts). An event is armed (a
 * handle_events job) only when some subscriber of its type is interested in its business; the
 * others are recorded already handled, for the history. So a reply in a business with no
 * webhook endpoint, SLA policy, auto-assignment or business hours costs its worker nothing, as
 * the arming SQL it replaced did (they checked the same settings when arming).
 *
 * A condition reads only what the subscriber itself would check first; it is a filter, never a
 * reaction. None: always interested.
 */
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../adapters/postgres/db.ts';
import type { DomainEventType } from './domain-types.ts';
import type { SubscriberName } from './subscriptions.ts';

type Interest = (business: FragmentSqlToken, type: DomainEventType) => FragmentSqlToken;

export const interests: Record<SubscriberName, Interest | null> = {
  out_of_hours: (b) => sql.fragment`exists (select 1 from business_hours h where h.business_id = ${b} and h.enabled)`,
  ai_agent: (b) =>
    sql.fragment`exists (select 1 from businesses x join plans p on p.name = x.plan where x.id = ${b} and x.ai_auto_reply_enabled and p.ai_auto_reply)`,
  auto_assign: (b) => sql.fragment`exists (select 1 from assignment_settings s where s.business_id = ${b} and s.enabled)`,
  // Settings: a policy deleted (the last one too) or business hours moved still rearm the clocks.
  sla: (b, type) => (type === 'settings.changed' ? sql.fragment`true` : sql.fragment`exists (select 1 from sla_policies p where p.business_id = ${b})`),
  csat: (b) => sql.fragment`exists (select 1 from csat_settings s where s.business_id = ${b} and s.enabled)`,
  mention_mail: null,
  audit_log: null,
  webhooks: (b, type) => sql.fragment`exists (select 1 from webhook_endpoints w where w.business_id = ${b} and w.active and ${type}::text = any(w.events))`,
};
