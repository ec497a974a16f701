/**
 * Platform payloads are stored as they come, and a platform must never be refused for a
 * customer's text (it would redeliver forever): NUL, which PostgreSQL text and jsonb cannot
 * hold, and unpaired UTF-16 surrogates, which are not Unicode, become U+FFFD (the replacement
 * character) in every string, object keys included. Client requests are refused instead (api/input-guard.ts).
 */
const storableString = (value: string) => value.toWellFormed().replaceAll('\u0000', '\uFFFD');

export function storableText<T>(value: T): T {
  if (typeof value === 'string') return storableString(value) as T;
  if (Array.isArray(value)) return value.map(storableText) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableString(key), storableText(item)])) as T;
}
