/**
 * One benchmark result row and how the runner prints and saves them. A row's figure is set
 * against a baseline measured in the same run (`ratio` = figure / baseline) and checked
 * against its goal; `pass` is null when the goal is not enforced (--quick) or not measurable.
 */
import { writeFileSync } from 'node:fs';
import { round } from './stats.ts';

export type Result = {
  /** Row name, e.g. "agent reply, 1 business: req/s". */
  name: string;
  /** The measured value in `unit`. */
  figure: number;
  unit: string;
  /** What the baseline is, e.g. "Koa + one INSERT"; empty when the row has none. */
  baselineLabel: string;
  /** The baseline's value in the same unit (NaN when the row has none). */
  baseline: number;
  /** figure / baseline (NaN without a baseline). */
  ratio: number;
  /** The goal as text, e.g. "≥ 0.5× baseline". */
  goal: string;
  /** Whether the goal is met; null when not checked (quick mode) or undecidable. */
  pass: boolean | null;
  /** Anything a reader needs to trust the figure (counts, errors seen). */
  note?: string;
};

export type Goal = { text: string; met: (r: { figure: number; ratio: number }) => boolean };

/** Builds a result and decides pass/miss (`enforce` false leaves it null). */
export function result(
  fields: { name: string; figure: number; unit: string; baseline?: number; baselineLabel?: string; goal: Goal; note?: string },
  enforce: boolean,
): Result {
  const baseline = fields.baseline ?? NaN;
  const ratio = Number.isFinite(baseline) && baseline !== 0 ? fields.figure / baseline : NaN;
  const decidable = Number.isFinite(fields.figure);
  return {
    name: fields.name,
    figure: fields.figure,
    unit: fields.unit,
    baselineLabel: fields.baselineLabel ?? '',
    baseline,
    ratio,
    goal: fields.goal.text,
    pass: enforce && decidable ? fields.goal.met({ figure: fields.figure, ratio }) : null,
    ...(fields.note ? { note: fields.note } : {}),
  };
}

// Small figures keep two decimals (a 0.04 ms baseline is not 0).
const show = (n: number, digits = Math.abs(n) < 10 ? 2 : 1) => (Number.isFinite(n) ? String(round(n, digits)) : '–');
const verdict = (pass: boolean | null) => (pass === null ? '–' : pass ? 'PASS' : 'MISS');

/** The table as Markdown (printed to the terminal and pasted into the README). */
export function markdownTable(results: Result[]): string {
  const lines = [
    '| row | figure | baseline (same run) | ratio | goal | result |',
    '|---|---:|---|---:|---|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${show(r.figure)} ${r.unit} | ${r.baselineLabel ? `${show(r.baseline)} ${r.unit} (${r.baselineLabel})` : '–'} | ${show(r.ratio)} | ${r.goal} | ${verdict(r.pass)} |`,
    ),
  ];
  return lines.join('\n');
}

/** results.json: the machine, the mode and every row with its figures (NaN written as null). */
export function writeResults(file: string, run: Record<string, unknown>, results: Result[]): void {
  const clean = (n: number) => (Number.isFinite(n) ? round(n, 3) : null);
  const rows = results.map((r) => ({ ...r, figure: clean(r.figure), baseline: clean(r.baseline), ratio: clean(r.ratio) }));
  writeFileSync(file, JSON.stringify({ ...run, rows }, null, 2) + '\n');
}
