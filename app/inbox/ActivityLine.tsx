/**
 * One entry of a conversation's activity history as a quiet line in the thread ("Ana assigned
 * this to Ben · 10:42"), as Chatwoot and Front show theirs. The sentence is built from the
 * entry's type, actor and data (GET /conversations/{id}/events).
 */
import type { Activity } from '../types.ts';
import { clockTime } from '../ui/time.ts';

function actorName(a: Activity): string {
  if (a.actor.type === 'ai') return 'The AI agent';
  if (a.actor.type === 'customer') return 'The customer';
  return a.actor.name ?? 'Parley';
}

/** The sentence for an entry, or null for one the thread does not show. */
export function activitySentence(a: Activity): string | null {
  const who = actorName(a);
  const d = a.data as Record<string, unknown>;
  switch (a.type) {
    case 'conversation.assigned':
      if (!d.assignee_id) return `${who} unassigned this`;
      if (a.actor.id && a.actor.id === d.assignee_id) return `${who} took this`;
      return `${who} assigned this to ${(d.assignee_name as string | null) ?? 'a former member'}`;
    case 'conversation.resolved':
      return `${who} resolved this`;
    case 'conversation.closed':
      return `${who} closed this`;
    case 'conversation.opened':
      return `${who} reopened this`;
    case 'conversation.snoozed':
      return d.until ? `${who} snoozed this until ${clockTime(d.until as string)}` : `${who} snoozed this until the customer replies`;
    case 'conversation.woken':
      return a.actor.type === 'system' ? 'The snooze ended' : `${who} woke this`;
    case 'conversation.labelled': {
      const added = (d.added as string[] | undefined) ?? [];
      const removed = (d.removed as string[] | undefined) ?? [];
      const parts = [added.length ? `added ${added.join(', ')}` : '', removed.length ? `removed ${removed.join(', ')}` : ''].filter(Boolean);
      return `${who} ${parts.join(' and ')}`;
    }
    case 'conversation.prioritized':
      return `${who} set the priority to ${d.priority as string}`;
    case 'conversation.team_changed':
      return d.team_id ? `${who} moved this to ${(d.team_name as string | null) ?? 'a team'}` : `${who} took this out of its team`;
    case 'handoff.requested':
      return `The AI agent handed this over: ${d.reason as string}`;
    default:
      return null;
  }
}

export function ActivityLine({ activity }: { activity: Activity }) {
  const sentence = activitySentence(activity);
  if (!sentence) return null;
  return (
    <p class="activity-line">
      {sentence} · <time dateTime={activity.at}>{clockTime(activity.at)}</time>
    </p>
  );
}
