/**
 * Durations in business hours for the reports: only the time the team is open counts between
 * two instants (docs/decisions.md#reports). The open periods come from business-hours.ts (the
 * same DST-correct arithmetic as the SLA due times and the widget's "back at"), worked out once
 * per report for the span it needs and handed to PostgreSQL as sorted instants, where
 * `business_clock` (migration 0109) turns each timestamp into the open seconds before it by a
 * binary search: a duration is the difference of two readings, so 100,000 conversations cost
 * 200,000 binary searches and no time zone conversion.
 */
import { openPeriodsBetween, type Hours } from './business-hours.ts';

/**
 * Open periods as marks [open₁, close₁, open₂, …] in epoch seconds, the open seconds up to each
 * mark (one more element repeating the last), and base = openBefore − marks: the arrays
 * `business_clock` (migration 0109) reads.
 */
export type BusinessClock = { marks: number[]; base: number[]; openBefore: number[] };

/** Whether the hours have any open time in a week: hours without a single shift measure nothing. */
export const hasShifts = (hours: Hours): boolean => Object.values(hours.week).some((shifts) => (shifts?.length ?? 0) > 0);

/** The clock for instants in [from, to] (a reading outside is that of the nearest end). */
export function businessClock(hours: Hours, from: Date, to: Date): BusinessClock {
  const marks: number[] = [];
  const openBefore: number[] = [];
  let open = 0;
  for (const [start, end] of openPeriodsBetween(hours, from, to)) {
    marks.push(start / 1000, end / 1000);
    openBefore.push(open, open + (end - start) / 1000);
    open += (end - start) / 1000;
  }
  openBefore.push(open);
  return { marks, base: marks.map((m, i) => openBefore[i]! - m), openBefore };
}

/** The clock's reading at `at` (seconds of open time since its first mark), computed directly. */
export function clockReading(clock: BusinessClock, at: Date): number {
  const t = at.getTime() / 1000;
  let i = 0;
  while (i < clock.marks.length && clock.marks[i]! <= t) i++;
  if (i === 0) return 0;
  return clock.openBefore[i - 1]! + (i % 2 === 1 ? t - clock.marks[i - 1]! : 0);
}
