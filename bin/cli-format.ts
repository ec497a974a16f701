/** Plain-text output of the admin commands (`parley jobs`, `parley business`): exit codes, streams, tables, ages. */

export const exitCodes = { ok: 0, error: 1, usage: 2, notFound: 3 } as const;

/** Where a command writes: its answer to `out` (stdout), errors to `err` (stderr). */
export type CliOutput = { out: (text: string) => void; err: (text: string) => void };

/** Columns padded to their widest cell; the listed columns right-aligned. */
export function table(headers: string[], rows: string[][], rightAligned: number[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (rightAligned.includes(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [headers, ...rows].map(line).join('\n') + '\n';
}

/** The first line of `text`, cut to `max` characters; `…` marks what was left out. */
export function oneLine(text: string | null, max: number): string {
  if (!text) return '-';
  const first = text.trim().split('\n')[0].trim();
  const more = first.length > max || text.trim().includes('\n');
  const cut = first.length > max ? first.slice(0, max - 1) : first;
  return more ? `${cut}…` : cut;
}

/** 45s, 12m, 5h, 3d. */
export function age(iso: string, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - new Date(iso).getTime()) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
