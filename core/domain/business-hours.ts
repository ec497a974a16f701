/**
 * Business hours: whether a team is open at an instant, and when that changes next, in the
 * business's IANA time zone. Pure code over `Intl.DateTimeFormat` (the time zone database Node
 * ships), with no date library: the two conversions it needs are instant → local wall time
 * (Intl does it) and local wall time → instant, done here by trying the zone's offsets on either
 * side of the wall time (see `zonedToInstant`), which settles both DST cases exactly:
 *  - a wall time that does not exist (spring forward, 02:30 in Berlin on the last Sunday of
 *    March) is taken as the same time with the offset before the change, i.e. just after the
 *    gap (03:30), as Temporal's `compatible` disambiguation does;
 *  - a wall time that happens twice (fall back, 02:30 in Berlin in October) is the earlier one.
 * Shifts are per weekday, `open` < `close`, `"HH:MM"` local times, `close` may be `"24:00"`; a
 * shift that runs past midnight is two shifts (Mon 22:00–24:00 and Tue 00:00–02:00), which
 * join into one open period. A holiday (a local date) is closed all day.
 */

export const dayKeys = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type DayKey = (typeof dayKeys)[number];
/** Local times `"HH:MM"`, 00:00 ≤ open < close ≤ 24:00. */
export type Shift = { open: string; close: string };
export type Week = Partial<Record<DayKey, Shift[]>>;

export type Hours = {
  /** IANA name, e.g. `Europe/Berlin`. */
  timezone: string;
  week: Week;
  /** Local dates `YYYY-MM-DD`, closed all day. */
  holidays: readonly string[];
};

/** Whether the team is open at `at`, and until when that holds (null: no change in the next LOOKAHEAD_DAYS). */
export type HoursState = { open: boolean; until: Date | null };

/** How far ahead changes are looked for (a long holiday closes no longer than this, as far as `until` says). */
export const LOOKAHEAD_DAYS = 60;

const DAY_MS = 86_400_000;

/** Minutes since midnight of `"HH:MM"` (24:00 allowed), or null when malformed. */
export function minutesOf(time: string): number | null {
  const match = /^(\d{2}):(\d{2})$/.exec(time);
  if (!match) return null;
  const [h, m] = [Number(match[1]), Number(match[2])];
  if (m > 59 || h > 24 || (h === 24 && m !== 0)) return null;
  return h * 60 + m;
}

/** Whether Node knows `name` as a time zone (an IANA name; not an offset like `+01:00`). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The local wall time at `ms` in `timeZone`, as if it were UTC (ms since epoch, whole seconds). */
function wallMs(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour % 24, parts.minute, parts.second);
}

/** The zone's offset at instant `ms` (local − UTC), in ms. */
function offsetMs(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallMs(whole, timeZone) - whole;
}

/** The local date `YYYY-MM-DD` of an instant. */
export function localDate(at: Date, timeZone: string): string {
  return new Date(wallMs(at.getTime(), timeZone)).toISOString().slice(0, 10);
}

/**
 * The instant of local wall time `date` (YYYY-MM-DD) + `minutes` in `timeZone`. Gaps and
 * repeated hours as the module comment says.
 */
export function zonedToInstant(date: string, minutes: number, timeZone: string): Date {
  const wall = Date.parse(`${date}T00:00:00Z`) + minutes * 60_000;
  // The offsets in force a day before and a day after: a wall time is near at most one change.
  const before = offsetMs(wall - DAY_MS, timeZone);
  const after = offsetMs(wall + DAY_MS, timeZone);
  const valid = [wall - before, wall - after].filter((candidate) => wallMs(candidate, timeZone) === wall);
  if (valid.length > 0) return new Date(Math.min(...valid));
  // In the gap: the offset before the change carries it past the gap.
  return new Date(wall - before);
}

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const weekdayOf = (date: string): DayKey => dayKeys[new Date(`${date}T00:00:00Z`).getUTCDay()];

/** Open periods as instants [start, end), merged where they touch, from the local day before `at` for `days` days. */
function openPeriods(hours: Hours, at: Date, days: number): Array<[number, number]> {
  const holidays = new Set(hours.holidays);
  const first = addDays(localDate(at, hours.timezone), -1);
  const periods: Array<[number, number]> = [];
  for (let i = 0; i < days + 2; i++) {
    const date = addDays(first, i);
    if (holidays.has(date)) continue;
    for (const shift of hours.week[weekdayOf(date)] ?? []) {
      const open = minutesOf(shift.open);
      const close = minutesOf(shift.close);
      if (open === null || close === null || open >= close) continue;
      // 24:00 is the next day's midnight (which may itself be shifted by DST).
      const end = close === 1440 ? zonedToInstant(addDays(date, 1), 0, hours.timezone) : zonedToInstant(date, close, hours.timezone);
      periods.push([zonedToInstant(date, open, hours.timezone).getTime(), end.getTime()]);
    }
  }
  periods.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of periods) {
    if (end <= start) continue;
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/**
 * The open periods that touch [from, to), as instants [start, end) in ms, merged where they
 * touch, in order (the first may start before `from`, the last end after `to`).
 */
export function openPeriodsBetween(hours: Hours, from: Date, to: Date): Array<[number, number]> {
  const days = Math.ceil((to.getTime() - from.getTime()) / DAY_MS) + 1;
  return openPeriods(hours, from, Math.max(days, 1)).filter(([start, end]) => end > from.getTime() && start < to.getTime());
}

/** Open or closed at `at`, and the next change (null: none within LOOKAHEAD_DAYS). */
export function hoursState(hours: Hours, at: Date): HoursState {
  const t = at.getTime();
  const periods = openPeriods(hours, at, LOOKAHEAD_DAYS);
  const horizon = t + LOOKAHEAD_DAYS * DAY_MS;
  const current = periods.find(([start, end]) => start <= t && t < end);
  if (current) return { open: true, until: current[1] >= horizon ? null : new Date(current[1]) };
  const next = periods.find(([start]) => start > t);
  return { open: false, until: next && next[0] < horizon ? new Date(next[0]) : null };
}

export const isOpenAt = (hours: Hours, at: Date): boolean => hoursState(hours, at).open;

/** Why a week is not valid (the first problem), or null. Shifts of a day may not overlap. */
export function weekProblem(week: Week): string | null {
  for (const day of dayKeys) {
    const shifts = week[day] ?? [];
    const spans: Array<[number, number]> = [];
    for (const shift of shifts) {
      const open = minutesOf(shift.open);
      const close = minutesOf(shift.close);
      if (open === null || open === 1440) return `${day}: open must be a time HH:MM from 00:00 to 23:59`;
      if (close === null) return `${day}: close must be a time HH:MM from 00:01 to 24:00`;
      if (open >= close) return `${day}: open must be before close (a shift past midnight is two shifts)`;
      spans.push([open, close]);
    }
    spans.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) if (spans[i][0] < spans[i - 1][1]) return `${day}: shifts overlap`;
  }
  return null;
}
