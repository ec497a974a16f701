/**
 * The inbox's view and filters live in the URL (?view=&status=&channel=&label=&team=&priority=&sla=), so a
 * reload or a shared link keeps them. The Snoozed view lists snoozed conversations; every other
 * view leaves them out (they come back when they wake).
 */
import { computed } from '@preact/signals';
import { qs } from '../api.ts';
import { currentLocation } from '../router.ts';
import type { ChannelType, ConversationStatus, Priority } from '../types.ts';

export type View = 'mine' | 'unassigned' | 'all' | 'snoozed';
/** `active` (open and pending: waiting for the team) is the default; '' is any status. */
export type StatusFilter = ConversationStatus | 'active' | '';
/** `label`: a label name ('' is any). */
/** `sla`: only conversations past an SLA due time (`breached`), due within the hour (`due_soon`), or with anything due (`due`); each sorted by due time, soonest first. */
export type SlaFilter = 'breached' | 'due_soon' | 'due' | '';
/** `team`: a team id, `none` (conversations without a team) or '' (any). */
export type Filters = { view: View; status: StatusFilter; channel: ChannelType | ''; label: string; team: string; priority: Priority | ''; sla: SlaFilter };

export const SLA_FILTERS: { id: SlaFilter; label: string }[] = [
  { id: '', label: 'Any SLA' },
  { id: 'breached', label: 'Overdue' },
  { id: 'due_soon', label: 'Due soon' },
  { id: 'due', label: 'By due time' },
];

export const VIEWS: { id: View; label: string }[] = [
  { id: 'mine', label: 'Mine' },
  { id: 'unassigned', label: 'Unassigned' },
  { id: 'all', label: 'All' },
  { id: 'snoozed', label: 'Snoozed' },
];
export const PRIORITIES: { id: Priority; label: string }[] = [
  { id: 'urgent', label: 'Urgent' },
  { id: 'high', label: 'High' },
  { id: 'medium', label: 'Medium' },
  { id: 'low', label: 'Low' },
  { id: 'none', label: 'No priority' },
];
export const STATUSES: { id: StatusFilter; label: string }[] = [
  { id: 'active', label: 'Open & pending' },
  { id: 'open', label: 'Open' },
  { id: 'pending', label: 'Pending' },
  { id: 'resolved', label: 'Resolved' },
  { id: 'closed', label: 'Closed' },
  { id: '', label: 'Any status' },
];

export const filters = computed<Filters>(() => {
  const q = currentLocation.value.query;
  const view = (['mine', 'unassigned', 'all', 'snoozed'] as const).find((v) => v === q.get('view')) ?? 'all';
  const priority = PRIORITIES.find((p) => p.id === q.get('priority'))?.id ?? '';
  const raw = q.get('status');
  const status = raw === null ? 'active' : raw === 'any' ? '' : (STATUSES.find((s) => s.id === raw)?.id ?? 'active');
  const sla = SLA_FILTERS.find((x) => x.id !== '' && x.id === q.get('sla'))?.id ?? '';
  return { view, status, channel: (q.get('channel') ?? '') as Filters['channel'], label: q.get('label') ?? '', team: q.get('team') ?? '', priority, sla };
});

/** A message of the selected conversation to bring into view and mark (?message=<id>: a search hit, a mention). */
export const linkedMessage = computed(() => currentLocation.value.query.get('message'));

/** The selected conversation: /app/inbox/<id>. */
export const selectedId = computed(() => currentLocation.value.path.match(/^\/app\/inbox\/([0-9a-f-]{36})$/)?.[1] ?? null);

/** The inbox URL for these filters (and optionally a conversation). */
export function inboxUrl(next: Partial<Filters>, conversationId: string | null = selectedId.value): string {
  const f = { ...filters.value, ...next };
  return `/app/inbox${conversationId ? `/${conversationId}` : ''}${qs({ view: f.view === 'all' ? undefined : f.view, status: f.status === 'active' ? undefined : f.status || 'any', channel: f.channel, label: f.label, team: f.team, priority: f.priority, sla: f.sla })}`;
}
