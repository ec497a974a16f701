/**
 * Highlighted snippets as data, never as markup: `[{text, match}]` pieces that a client renders
 * as text nodes, so nothing a customer wrote is ever interpreted as HTML. The pieces are cut
 * here from the stored text, exactly as written (PostgreSQL's ts_headline was tried and drops
 * what its parser reads as tags, `<b>`, and punctuation at fragment ends: a snippet must not
 * change what the customer wrote).
 */

/** One piece of a snippet; `match` pieces are the words the query found. */
export type Segment = { text: string; match: boolean };

/** A word as PostgreSQL's parser cuts text: letters, marks, digits (the `simple` configuration lower-cases it). */
const WORD = /([\p{L}\p{M}\p{N}_]+)/u;

/** The words of a search box query, lower-cased, without websearch's operators (`or`, quotes, `-`). */
export function queryWords(text: string): Set<string> {
  const words = text
    .toLowerCase()
    .split(WORD)
    .filter((_, i) => i % 2 === 1);
  return new Set(words.filter((w) => w !== 'or'));
}

/** Words of context kept around the first match, before and in all. */
const BEFORE = 10;
const WORDS = 36;

/**
 * `text` with the words of `words` marked: the whole text when it is short, else about
 * WORDS words from a little before the first match, with `…` where it was cut.
 */
export function markWords(text: string, words: Set<string>): Segment[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  const parts = flat.split(WORD); // even: between words, odd: words
  const firstWord = parts.findIndex((p, i) => i % 2 === 1 && words.has(p.toLowerCase()));
  let from = 0;
  let to = parts.length;
  if (parts.length > 2 * WORDS + 1) {
    from = Math.max(0, (firstWord < 0 ? 1 : firstWord) - 2 * BEFORE);
    if (from % 2 === 0 && from > 0) from -= 1;
    to = Math.min(parts.length, from + 2 * WORDS);
  }
  const out: Segment[] = [];
  const push = (piece: string, match: boolean) => {
    if (!piece) return;
    const last = out.at(-1);
    if (last && last.match === match) last.text += piece;
    else out.push({ text: piece, match });
  };
  if (from > 0) push('… ', false);
  for (let i = from; i < to; i++) push(parts[i]!, i % 2 === 1 && words.has(parts[i]!.toLowerCase()));
  if (to < parts.length) push(' …', false);
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
