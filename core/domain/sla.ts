/**
 * SLA arithmetic, pure: which policy a conversation follows, and when each of its targets is due.
 *
 * Targets (docs/decisions.md#sla-targets-and-csat):
 *  - first response: from the conversation's creation to the first agent reply (`first_response_at`);
 *  - next response: from the oldest customer message after an agent reply to the next agent reply;
 *  - resolution: from the conversation's creation to its resolution (or closing).
 * A target is due `minutes` after its start, in calendar time, or, for a policy with
 * `business_hours_only` while the business's hours are on, in working time: only the minutes the
 * team is open count (core/domain/business-hours.ts, DST-correct).
 */
import { hoursState, type Hours } from './business-hours.ts';

export const slaTargets = ['first_response', 'next_response', 'resolution'] as const;
export type SlaTarget = (typeof slaTargets)[number];

export type SlaPolicyRule = {
  id: string;
  name: string;
  first_response_minutes: number | null;
  next_response_minutes: number | null;
  resolution_minutes: number | null;
  business_hours_only: boolean;
  channel_ids: readonly string[];
  label_ids: readonly string[];
};

const MINUTE = 60_000;

/**
 * The instant `minutes` after `start`: calendar minutes when `hours` is null, else only the
 * minutes the team is open (a start while closed waits for the next opening). Null when the
 * team does not open within the lookahead of business-hours.ts (60 days) before the time is used up.
 */
export function addWorkingMinutes(start: Date, minutes: number, hours: Hours | null): Date | null {
  if (!hours) return new Date(start.getTime() + minutes * MINUTE);
  let t = start.getTime();
  let left = minutes * MINUTE;
  // Each step crosses one open or closed period; a year of targets is some hundreds of periods.
  for (let step = 0; step < 2000; step++) {
    const state = hoursState(hours, new Date(t));
    if (state.open) {
      if (state.until === null || state.until.getTime() - t >= left) return new Date(t + left);
      left -= state.until.getTime() - t;
      t = state.until.getTime();
    } else {
      if (state.until === null) return null;
      t = state.until.getTime();
    }
  }
  return null;
}

/**
 * The policy a conversation follows: the first (by name) naming one of its labels, else the first
 * naming its channel, else the first naming neither (a policy for every conversation); null when none fits.
 */
export function choosePolicy<P extends SlaPolicyRule>(
  policies: readonly P[],
  conversation: { channel_id: string | null; label_ids: readonly string[] },
): P | null {
  const sorted = [...policies].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
  const labels = new Set(conversation.label_ids);
  return (
    sorted.find((p) => p.label_ids.some((id) => labels.has(id))) ??
    sorted.find((p) => conversation.channel_id !== null && p.channel_ids.includes(conversation.channel_id)) ??
    sorted.find((p) => p.label_ids.length === 0 && p.channel_ids.length === 0) ??
    null
  );
}

/** What the due times depend on, read from the conversation and its messages. */
export type SlaClock = {
  status: 'open' | 'pending' | 'resolved' | 'closed';
  created_at: Date;
  first_response_at: Date | null;
  /** When it was resolved or closed (null while open or pending). */
  finished_at: Date | null;
  /** The oldest customer message after the latest agent reply (null: none, or no agent reply yet). */
  waiting_since: Date | null;
  /** The reply-cycle answered last: its oldest customer message and the agent reply that answered it (null: none after a first reply). */
  answered: { since: Date; replied_at: Date } | null;
};

export type TargetState = { target: SlaTarget; due_at: Date; met_at: Date | null };

export type SlaDue = {
  first_response: TargetState | null;
  next_response: TargetState | null;
  resolution: TargetState | null;
  /** The next-response cycle answered last, to record when it was answered late. */
  answered_next_response: TargetState | null;
};

/** The due times of a conversation under `policy` (working time when `hours` is given). */
export function slaDue(policy: SlaPolicyRule, hours: Hours | null, clock: SlaClock): SlaDue {
  const due = (start: Date, minutes: number | null) => (minutes === null ? null : addWorkingMinutes(start, minutes, hours));
  const state = (target: SlaTarget, at: Date | null, metAt: Date | null): TargetState | null => (at ? { target, due_at: at, met_at: metAt } : null);
  const live = clock.status === 'open' || clock.status === 'pending';
  return {
    first_response: state('first_response', due(clock.created_at, policy.first_response_minutes), clock.first_response_at ?? (live ? null : clock.finished_at)),
    next_response: live && clock.waiting_since ? state('next_response', due(clock.waiting_since, policy.next_response_minutes), null) : null,
    resolution: state('resolution', due(clock.created_at, policy.resolution_minutes), live ? null : clock.finished_at),
    answered_next_response: clock.answered ? state('next_response', due(clock.answered.since, policy.next_response_minutes), clock.answered.replied_at) : null,
  };
}

/** Targets not met yet, soonest first. */
export function unmetTargets(due: SlaDue): TargetState[] {
  return [due.first_response, due.next_response, due.resolution]
    .filter((s): s is TargetState => s !== null && s.met_at === null)
    .sort((a, b) => a.due_at.getTime() - b.due_at.getTime());
}

/** The targets breached as of `now`: unmet past their due time, or met after it. */
export function breachedTargets(due: SlaDue, now: Date): TargetState[] {
  return [due.first_response, due.next_response, due.resolution, due.answered_next_response].filter(
    (s): s is TargetState => s !== null && (s.met_at ?? now).getTime() > s.due_at.getTime(),
  );
}
