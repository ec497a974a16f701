import { currentTime } from './clock.ts';

/** Short, human times: "now", "5m", "3h", "Mon", "12 Mar" (a view showing it is kept current: app/ui/clock.ts). */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const at = new Date(iso);
  const seconds = (currentTime() - at.getTime()) / 1000;
  if (seconds < 60) return 'now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  if (seconds < 6 * 86_400) return at.toLocaleDateString(undefined, { weekday: 'short' });
  return at.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
}

/** "14:05" today, else "12 Mar, 14:05". */
export function clockTime(iso: string): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString(undefined, { hour: HOUR, minute: '2-digit' });
  return at.toDateString() === new Date(currentTime()).toDateString()
    ? time
    : `${at.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })}, ${time}`;
}

/** Seconds as "45s", "12m", "3h 5m". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)}s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return m ? `${h}h ${m}m` : `${h}h`;
}

/**
 * The `hour` option for a clock time in the browser's locale: `numeric` on a 12-hour clock ("9:00
 * AM", not "09:00 AM"), `2-digit` on a 24-hour one ("09:00", not "9:00").
 */
export const HOUR: 'numeric' | '2-digit' = /h1[12]/.test(new Intl.DateTimeFormat(undefined, { hour: 'numeric' }).resolvedOptions().hourCycle ?? '')
  ? 'numeric'
  : '2-digit';
