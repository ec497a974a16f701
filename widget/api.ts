/** The visitor API and the public widget read, over fetch (any origin: the API answers CORS `*`). */
import type { VisitContext } from './storage.ts';

export type PublicWidget = {
  id: string;
  name: string;
  welcome_heading: string;
  welcome_tagline: string;
  /** `#RGB` or `#RRGGBB`. */
  primary_color: string;
  show_online_badge: boolean;
  logo_url: string | null;
  /** Some member of the business is `live`. */
  is_online: boolean;
  /** Whether the team is within its business hours now, and when it next opens (ISO 8601) when not. Absent from older servers. */
  business_hours?: { enabled: boolean; is_open: boolean; next_open_at: string | null; timezone: string };
};

export type VisitorAttachment = { url?: string; filename?: string; content_type?: string; size?: number };

export type VisitorMessage = {
  id: string;
  conversation_id: string;
  sender_type: 'customer' | 'agent' | 'ai' | 'system';
  content: string;
  attachments: VisitorAttachment[];
  created_at: string;
  /** On the satisfaction question sent when the conversation was resolved: rate once with the token. */
  csat?: { token: string; rating: number | null };
};

/**
 * A signed-in user of the site, signed by its server: `user_hash` = hex HMAC-SHA256 of
 * `external_id` (or `email` without one) under the widget's identity secret.
 */
export type VisitorIdentity = {
  external_id?: string;
  email?: string;
  name?: string;
  attributes?: Record<string, string | number | boolean | null>;
  user_hash: string;
};

export type VisitorSession = { visitor_token: string; visitor_id: string; conversation_id: string | null; resumed: boolean };

export class ApiError extends Error {
  status: number;
  /** Seconds, from `Retry-After` on 429. */
  retryAfter: number;
  constructor(status: number, detail: string, retryAfter: number) {
    super(detail);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

export type Api = ReturnType<typeof createApi>;

export function createApi(base: string) {
  /** `body` is sent as JSON, `form` as multipart (the browser sets its content type). */
  async function call<T>(method: string, path: string, options: { token?: string; body?: unknown; form?: FormData } = {}): Promise<T> {
    const headers: Record<string, string> = {};
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(base + path, {
        method,
        headers,
        body: options.form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
        credentials: 'omit',
      });
    } catch {
      throw new ApiError(0, 'Network error', 0);
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // a proxy's HTML error page
    }
    if (!response.ok) {
      const detail = parsed && typeof (parsed as { detail?: unknown }).detail === 'string' ? (parsed as { detail: string }).detail : `HTTP ${response.status}`;
      throw new ApiError(response.status, detail, Number(response.headers.get('Retry-After')) || 0);
    }
    return parsed as T;
  }

  return {
    widget: (widgetId: string) => call<PublicWidget>('GET', `/api/v1/widget/${encodeURIComponent(widgetId)}`),
    startSession: (body: { widget_id: string; visitor_token?: string | null; identity?: VisitorIdentity; context?: VisitContext }) =>
      call<VisitorSession>('POST', '/api/v1/visitor/sessions', { body }),
    send: (token: string, body: { content: string; client_message_id: string; attachments?: VisitorAttachment[] }) =>
      call<VisitorMessage>('POST', '/api/v1/visitor/messages', { token, body }),
    messages: (token: string) => call<VisitorMessage[]>('GET', '/api/v1/visitor/messages', { token }),
    rate: (csatToken: string, rating: number) => call<{ rating: number }>('POST', `/api/v1/csat/${encodeURIComponent(csatToken)}`, { body: { rating } }),
    /** An image or PDF, stored by Parley; send the answer in a message's `attachments`. */
    upload: (token: string, file: File) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return call<VisitorAttachment>('POST', '/api/v1/visitor/uploads', { token, form });
    },
  };
}
