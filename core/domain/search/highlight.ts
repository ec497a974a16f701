/**
 * Highlighted snippets as data, never as markup: PostgreSQL's ts_headline marks the matched
 * words with two private-use characters (removed from the text first, so a customer cannot
 * forge a mark), and splitTagged turns its answer into `[{text, match}]` segments that a client
 * renders as text nodes. Nothing a customer wrote is ever interpreted as HTML.
 */
import { sql } from '../../adapters/postgres/db.ts';
import type { FragmentSqlToken } from 'slonik';

/** One piece of a snippet; `match` pieces are the words the query found. */
export type Segment = { text: string; match: boolean };

const START = '\uE000';
const STOP = '\uE001';

/** Options of ts_headline: about 30 words around the matches, at most two fragments. */
const HEADLINE_OPTIONS = `StartSel=${START}, StopSel=${STOP}, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;

/** `ts_headline` of `text` for `query` (a tsquery fragment), with the marks splitTagged reads. */
export const headline = (text: FragmentSqlToken, query: FragmentSqlToken) =>
  sql.fragment`ts_headline('simple'::regconfig, translate(${text}, ${START + STOP}, ''), ${query}, ${HEADLINE_OPTIONS})`;

/** ts_headline's marked text → segments (adjacent pieces of the same kind merged, empty ones dropped). */
export function splitTagged(tagged: string): Segment[] {
  const out: Segment[] = [];
  const push = (text: string, match: boolean) => {
    if (!text) return;
    const last = out.at(-1);
    if (last && last.match === match) last.text += text;
    else out.push({ text, match });
  };
  let rest = tagged.replace(/\s+/g, ' ').trim();
  while (rest) {
    const start = rest.indexOf(START);
    if (start < 0) break;
    push(rest.slice(0, start), false);
    const stop = rest.indexOf(STOP, start + 1);
    const end = stop < 0 ? rest.length : stop;
    push(rest.slice(start + 1, end), true);
    rest = rest.slice(end + 1);
  }
  push(rest.replaceAll(STOP, ''), false);
  return out;
}

/** Every case-insensitive occurrence of `needle` in `text` marked (customer fields matched as substrings). */
export function markSubstring(text: string, needle: string): Segment[] {
  const lower = text.toLowerCase();
  const want = needle.toLowerCase();
  if (!want) return [{ text, match: false }];
  const out: Segment[] = [];
  let from = 0;
  for (let at = lower.indexOf(want); at >= 0; at = lower.indexOf(want, at + want.length)) {
    if (at > from) out.push({ text: text.slice(from, at), match: false });
    out.push({ text: text.slice(at, at + want.length), match: true });
    from = at + want.length;
  }
  if (from < text.length) out.push({ text: text.slice(from), match: false });
  return out;
}

/** Digits of a phone number typed any way ("+1 (555) 010-2030" → "15550102030"). */
export const digitsOf = (text: string) => text.replace(/\D/g, '');

/** A phone number's characters marked where its digits contain `digits` (formatting kept as stored). */
export function markDigits(phone: string, digits: string): Segment[] {
  const positions: number[] = [];
  for (let i = 0; i < phone.length; i++) if (/\d/.test(phone[i]!)) positions.push(i);
  const at = digitsOf(phone).indexOf(digits);
  if (!digits || at < 0) return [{ text: phone, match: false }];
  const first = positions[at]!;
  const last = positions[at + digits.length - 1]!;
  return [
    { text: phone.slice(0, first), match: false },
    { text: phone.slice(first, last + 1), match: true },
    { text: phone.slice(last + 1), match: false },
  ].filter((s) => s.text);
}
