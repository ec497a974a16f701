/**
 * Splits a reply longer than a platform's per-message limit into parts the customer reads in
 * order, breaking at a paragraph, line or word boundary where one lies in the second half of a
 * part, never inside a surrogate pair. Parley accepts replies up to 10,000 characters while
 * Telegram and WhatsApp take 4,096 and Instagram 1,000 bytes, so truncating would lose text.
 */

/**
 * How a platform measures a message: UTF-16 code units (JS length; never fewer than the
 * platform's "characters", so a part that fits here fits there) or UTF-8 bytes.
 */
export type TextMeasure = 'chars' | 'utf8';

function measure(text: string, unit: TextMeasure): number {
  return unit === 'chars' ? text.length : Buffer.byteLength(text, 'utf8');
}

/** The longest prefix of `text` (whole code points) that fits in `limit`. */
function fittingPrefix(text: string, limit: number, unit: TextMeasure): string {
  let used = 0;
  let end = 0;
  for (const codePoint of text) {
    const size = unit === 'chars' ? codePoint.length : Buffer.byteLength(codePoint, 'utf8');
    if (used + size > limit) break;
    used += size;
    end += codePoint.length;
  }
  return text.slice(0, end);
}

/** Returns the parts of `text`, each within `limit`; a text that fits is returned as one part. */
export function splitText(text: string, limit: number, unit: TextMeasure = 'chars'): string[] {
  if (limit < 1) throw new RangeError('limit must be positive');
  const parts: string[] = [];
  let rest = text;
  while (measure(rest, unit) > limit) {
    const window = fittingPrefix(rest, limit, unit);
    const floor = Math.floor(window.length / 2);
    let cut = /\s/.test(rest.charAt(window.length)) ? window.length : -1;
    for (const separator of ['\n\n', '\n', ' ']) {
      if (cut !== -1) break;
      const at = window.lastIndexOf(separator);
      if (at >= floor && at > 0) cut = at;
    }
    if (cut === -1) {
      parts.push(window);
      rest = rest.slice(window.length);
    } else {
      parts.push(window.slice(0, cut).trimEnd());
      rest = rest.slice(cut).replace(/^\s+/, '');
    }
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts.filter((part, index) => part.length > 0 || index === 0);
}
