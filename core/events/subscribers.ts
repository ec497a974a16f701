/**
 * The subscribers, in the order they run for a batch (core/events/subscriptions.ts lists what
 * each handles). A new reaction to a change is a new file in core/subscribers/ and a line here
 * and there; never a new wire into a command or a SQL statement.
 */
import outOfHours from '../subscribers/out-of-hours.ts';
import aiAgent from '../subscribers/ai-agent.ts';
import autoAssign from '../subscribers/auto-assign.ts';
import sla from '../subscribers/sla.ts';
import csat from '../subscribers/csat.ts';
import mentionMail from '../subscribers/mention-mail.ts';
import auditLog from '../subscribers/audit-log.ts';
import webhooks from '../subscribers/webhooks.ts';
import type { Subscriber } from './subscriber.ts';
import { subscriptions } from './subscriptions.ts';

export const subscribers: readonly (Subscriber & { events: readonly string[] })[] = [
  outOfHours,
  aiAgent,
  autoAssign,
  sla,
  csat,
  mentionMail,
  auditLog,
  webhooks,
];

export function subscriberNamed(name: string): (Subscriber & { events: readonly string[] }) | undefined {
  return subscribers.find((s) => s.name === name);
}

// Every line of the subscriptions list has its file here, in the list's order.
const listed = Object.keys(subscriptions).join(',');
if (subscribers.map((s) => s.name).join(',') !== listed) throw new Error(`core/events/subscribers.ts must register, in order: ${listed}`);
