/**
 * Parley's website widget. Embed:
 *
 *   <script src="https://parley.example.com/widget.js" data-widget-id="<widget id>" async></script>
 *
 * It reads the widget's public configuration, shows a bubble, and on the visitor's first
 * message starts a visitor session (POST /api/v1/visitor/sessions). The visitor token is kept
 * per widget in localStorage, so a returning visitor sees their conversation and gets replies
 * live on the `/widget` socket. The API address is where this script came from, unless the
 * tag names one in `data-api-url`.
 *
 * Identity verification: a site whose visitor is signed in passes who they are, signed by its
 * server (`user_hash` = hex HMAC-SHA256(widget identity secret, external_id or email)), on the
 * tag (`data-user-id`, `data-user-email`, `data-user-name`, `data-user-hash`) or with
 * `Parley.identify({external_id, email, name, attributes, user_hash})`; `Parley.logout()` forgets
 * them on this browser. An identified visitor is the same customer on every device.
 */
import type { Socket } from 'socket.io-client';
import { ApiError, createApi, type VisitorAttachment, type VisitorIdentity, type VisitorMessage } from './api.ts';
import { connectLive, typingSender } from './live.ts';
import { readToken, visitContext, writeToken } from './storage.ts';
import { createView } from './ui.ts';

declare global {
  interface Window {
    /** Set once a widget started on this page, so a second copy of the tag does nothing. */
    __parleyWidget?: boolean;
    /** The page's handle on the widget (identity verification). */
    Parley?: ParleyHandle;
  }
}

type ParleyHandle = {
  /** Who the signed-in visitor is, signed by the site's server; their conversations follow them. */
  identify: (identity: VisitorIdentity) => void;
  /** The visitor signed out: the widget forgets them on this browser. */
  logout: () => void;
};

/** The identity the tag carries (`data-user-id` or `data-user-email`, with `data-user-hash`), if any. */
function identityOf(script: HTMLScriptElement): VisitorIdentity | null {
  const d = script.dataset;
  if (!d.userHash || !(d.userId || d.userEmail)) return null;
  return {
    ...(d.userId ? { external_id: d.userId } : {}),
    ...(d.userEmail ? { email: d.userEmail } : {}),
    ...(d.userName ? { name: d.userName } : {}),
    user_hash: d.userHash,
  };
}

function findScript(): HTMLScriptElement | null {
  const current = document.currentScript;
  if (current instanceof HTMLScriptElement && current.dataset.widgetId) return current;
  return document.querySelector<HTMLScriptElement>('script[data-widget-id]');
}

function apiBaseOf(script: HTMLScriptElement): string {
  if (script.dataset.apiUrl) return script.dataset.apiUrl.replace(/\/+$/, '');
  const src = new URL(script.src, window.location.href);
  return (src.origin + src.pathname.replace(/\/widget\.js$/, '')).replace(/\/+$/, '');
}

/** A v4 UUID; crypto.randomUUID exists only on https pages. */
function uuid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function failureText(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) return 'Too many messages. Wait a moment, then tap to retry.';
  if (error instanceof ApiError && error.status === 415) return 'Only images and PDFs can be sent.';
  if (error instanceof ApiError && error.status === 413) return 'The file is too large (10 MB at most).';
  if (error instanceof ApiError && error.status === 404) return 'This chat is not available right now.';
  return 'Not sent. Tap to retry.';
}

async function start(script: HTMLScriptElement, handle: (controls: ParleyHandle) => void): Promise<void> {
  let identity = identityOf(script);
  const widgetId = script.dataset.widgetId as string;
  const base = apiBaseOf(script);
  const api = createApi(base);
  const widget = await api.widget(widgetId);
  /** This page in the visit, reported with every session start (a returning visitor's page load resumes one). */
  const visit = visitContext(widgetId);

  let token: string | null = null;
  let live: Socket | null = null;
  let session: Promise<string> | null = null;
  /** Messages being sent: their text, and a file still to upload (or uploaded). */
  const pending = new Map<string, { content: string; file?: File; attachment?: VisitorAttachment }>();
  /**
   * Sends go one at a time, each after the one before has been answered (stored, or failed and
   * marked for a retry): two messages written in quick succession reach the agent in the order
   * they were written, not in the order their requests happened to arrive.
   */
  let sending: Promise<void> = Promise.resolve();
  const send = (clientId: string) => {
    // (deliver settles every failure itself; the catch keeps the line going whatever happens.)
    sending = sending.then(() => deliver(clientId)).catch(() => {});
  };

  const typing = typingSender(() => live);

  const show = (messages: VisitorMessage[]) => messages.forEach((m) => view.showMessage(m));

  async function refresh(): Promise<void> {
    if (!token) return;
    try {
      show(await api.messages(token));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) forget();
    }
  }

  function forget(): void {
    token = null;
    session = null;
    writeToken(widgetId, null);
    live?.close();
    live = null;
  }

  function goLive(): void {
    if (!token || live) return;
    live = connectLive(base, token, {
      onMessage: (message) => view.showMessage(message),
      onTyping: (agentTyping) => view.showAgentTyping(agentTyping),
      onConnect: () => void refresh(),
      onRefused: () => {
        live?.close();
        live = null;
        // A refused token answers 401 here too, which forgets it.
        void refresh();
      },
    });
  }

  /** The visitor token, starting (or resuming) the session on first need. */
  function ensureSession(): Promise<string> {
    if (token) return Promise.resolve(token);
    session ??= api
      .startSession({ widget_id: widgetId, visitor_token: readToken(widgetId), context: visit, ...(identity ? { identity } : {}) })
      .then((started) => {
        token = started.visitor_token;
        writeToken(widgetId, token);
        goLive();
        return token;
      })
      .finally(() => {
        session = null;
      });
    return session;
  }

  async function deliver(clientId: string): Promise<void> {
    const item = pending.get(clientId);
    if (item === undefined) return;
    const sendAs = async (sessionToken: string) => {
      // A file goes up first (once: a retry after a failed send reuses it).
      if (item.file && !item.attachment) item.attachment = await api.upload(sessionToken, item.file);
      return api.send(sessionToken, { content: item.content, client_message_id: clientId, ...(item.attachment ? { attachments: [item.attachment] } : {}) });
    };
    try {
      let message: VisitorMessage;
      try {
        message = await sendAs(await ensureSession());
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 401)) throw error;
        // The stored visitor is gone: start a new one and send once more.
        forget();
        item.attachment = undefined;
        message = await sendAs(await ensureSession());
      }
      pending.delete(clientId);
      view.confirmPending(clientId, message);
    } catch (error) {
      view.failPending(clientId, failureText(error));
    }
  }

  const view = createView(
    widget,
    {
      onSend: (text) => {
        typing.stop();
        const clientId = uuid();
        pending.set(clientId, { content: text });
        view.addPending(clientId, text);
        send(clientId);
      },
      onAttach: (file) => {
        const clientId = uuid();
        // A message's text is required: a file alone is sent with its name, as the agent app does.
        const content = file.name.slice(0, 200) || 'Attachment';
        pending.set(clientId, { content, file });
        view.addPending(clientId, `📎 ${content}`);
        send(clientId);
      },
      onRetry: (clientId) => send(clientId),
      onOpen: () => {},
      onRate: async (csatToken, rating) => {
        try {
          await api.rate(csatToken, rating);
        } catch (error) {
          // Rated already (another tab): the first rating stands, and this one is shown as given.
          if (!(error instanceof ApiError && error.status === 409)) throw error;
        }
      },
      onInput: (text) => typing.input(text),
    },
    `${base}/api/v1/uploads`,
  );

  /** Starts the session of the visitor now on the page (identified or not), showing their messages. */
  async function switchVisitor(next: VisitorIdentity | null): Promise<void> {
    identity = next;
    const previous = readToken(widgetId);
    forget();
    view.clearMessages();
    if (!next) return;
    try {
      // The anonymous visitor this browser was (its token) is merged into the identified customer.
      const started = await api.startSession({ widget_id: widgetId, visitor_token: previous, identity: next, context: visit });
      token = started.visitor_token;
      writeToken(widgetId, token);
      await refresh();
      goLive();
    } catch (error) {
      console.warn('[parley] identify failed:', error instanceof Error ? error.message : error);
    }
  }

  handle({ identify: (next) => void switchVisitor(next), logout: () => void switchVisitor(null) });

  if (identity) {
    // An identified visitor: their session (and history) at once, on any device.
    await switchVisitor(identity);
  } else if (readToken(widgetId)) {
    // A returning visitor: resume (which also renews the token) and follow replies live.
    try {
      const started = await api.startSession({ widget_id: widgetId, visitor_token: readToken(widgetId), context: visit });
      token = started.visitor_token;
      writeToken(widgetId, token);
      if (started.resumed) await refresh();
      goLive();
    } catch {
      // The session starts again with the first message.
    }
  }
}

const script = findScript();
if (script && !window.__parleyWidget) {
  window.__parleyWidget = true;
  // Calls before the widget is up wait for it, the last identity winning.
  let controls: ParleyHandle | null = null;
  let queued: (() => void) | null = null;
  const call = (action: (c: ParleyHandle) => void) => {
    if (controls) action(controls);
    else queued = () => controls && action(controls);
  };
  window.Parley = {
    identify: (identity) => call((c) => c.identify(identity)),
    logout: () => call((c) => c.logout()),
  };
  const run = () =>
    start(script, (ready) => {
      controls = ready;
      queued?.();
      queued = null;
    }).catch((error: unknown) => {
      console.warn('[parley] the chat widget could not start:', error instanceof Error ? error.message : error);
    });
  if (document.body) void run();
  else document.addEventListener('DOMContentLoaded', () => void run(), { once: true });
}
