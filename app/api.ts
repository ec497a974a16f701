/**
 * The public REST API, on this origin, with the signed-in agent's token. A 401 signs the
 * agent out (the token expired or was revoked); every other error becomes an ApiError with
 * the API's message, ready to show.
 */
import { token } from './session-token.ts';

/**
 * A refused request: its status, the API's message, and for a validation error (422) the
 * message of each field it names, keyed by the field's path without its source ("email",
 * "config.phone_number_id"), for the form to show beside the field.
 */
export class ApiError extends Error {
  status: number;
  fields: Readonly<Record<string, string>>;
  constructor(status: number, message: string, fields: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.fields = fields;
  }
}

type Issue = { loc: (string | number)[]; msg: string; type?: string };
type ErrorBody = { detail?: string | Issue[]; message?: string };

/** "email" for `loc: ["body", "email"]`, "config.token" for `["body", "config", "token"]`; null for the body as a whole. */
const fieldOf = (issue: Issue): string | null => (issue.loc.length > 1 ? issue.loc.slice(1).join('.') : null);

/**
 * A reason as shown under its field: an empty field said plainly ("Can't be empty." rather than
 * "String should have at least 1 character"), the rest as the API wrote it, as a sentence
 * ("value is not a valid email address" is pydantic's wording).
 */
function reasonAtField(issue: Issue): string {
  if (issue.type === 'missing') return 'Required.';
  if (issue.type === 'string_too_short' && /at least 1 character$/.test(issue.msg)) return "Can't be empty.";
  return issue.msg.charAt(0).toUpperCase() + issue.msg.slice(1);
}

function errorOf(status: number, body: ErrorBody | null): ApiError {
  if (body?.message) return new ApiError(status, body.message); // plan errors
  if (typeof body?.detail === 'string') return new ApiError(status, body.detail);
  if (Array.isArray(body?.detail)) {
    const fields: Record<string, string> = {};
    for (const issue of body.detail) {
      const field = fieldOf(issue);
      if (field && !(field in fields)) fields[field] = reasonAtField(issue);
    }
    return new ApiError(status, body.detail.map((d) => `${String(d.loc[d.loc.length - 1])}: ${d.msg}`).join('; '), fields);
  }
  return new ApiError(status, status >= 500 ? 'Parley could not do that right now. Try again in a moment.' : `Request failed (${status})`);
}

/** Called on a 401 with a token: set by the session. */
let onUnauthorized: () => void = () => {};
export const setUnauthorizedHandler = (handler: () => void) => (onUnauthorized = handler);

export async function request<T>(method: string, path: string, body?: unknown, init: { form?: FormData } = {}): Promise<T> {
  return (await exchange<T>(method, path, body, init)).body;
}

/** A list and the cursor of its next page (`X-Next-Cursor`, null on the last page). */
export async function getPage<T>(path: string): Promise<{ items: T[]; next: string | null }> {
  const { items, next } = await getPageWithHeaders<T>(path);
  return { items, next };
}

/** getPage, with the response's headers (e.g. `X-Unread-Count`). */
export async function getPageWithHeaders<T>(path: string): Promise<{ items: T[]; next: string | null; headers: Headers }> {
  const { body, headers } = await exchange<T[]>('GET', path);
  return { items: body, next: headers.get('X-Next-Cursor'), headers };
}

/** A GET's body with its response's headers (e.g. a conversation's `X-Next-Cursor` for its older messages). */
export const getWithHeaders = <T>(path: string): Promise<{ body: T; headers: Headers }> => exchange<T>('GET', path);

async function exchange<T>(method: string, path: string, body?: unknown, init: { form?: FormData } = {}): Promise<{ body: T; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token.value) headers.authorization = `Bearer ${token.value}`;
  let payload: BodyInit | undefined;
  if (init.form) payload = init.form;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: payload });
  } catch {
    throw new ApiError(0, 'Parley cannot be reached. Check your connection.');
  }
  const text = await response.text();
  const parsed = text && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : null;
  // Only a refusal of the token still in use signs out: an answer to a request sent with a token
  // replaced meanwhile (a password change hands this tab a new one) says nothing about the new one.
  if (response.status === 401 && headers.authorization && headers.authorization === `Bearer ${token.value}`) onUnauthorized();
  if (!response.ok) throw errorOf(response.status, parsed);
  return { body: parsed as T, headers: response.headers };
}

/**
 * A file the API answers (a CSV export), fetched with the token and handed to the browser as a
 * download under the name its `Content-Disposition` gives (else `fallbackName`).
 */
export async function download(path: string, fallbackName: string): Promise<void> {
  const headers: Record<string, string> = token.value ? { authorization: `Bearer ${token.value}` } : {};
  let response: Response;
  try {
    response = await fetch(path, { headers });
  } catch {
    throw new ApiError(0, 'Parley cannot be reached. Check your connection.');
  }
  if (!response.ok) {
    const text = await response.text();
    if (response.status === 401 && headers.authorization === `Bearer ${token.value}`) onUnauthorized();
    throw errorOf(response.status, (response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : null);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, body),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  delete: <T>(path: string) => request<T>('DELETE', path),
  upload: <T>(path: string, form: FormData) => request<T>('POST', path, undefined, { form }),
};

/** A query string from the defined values. */
export function qs(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}
