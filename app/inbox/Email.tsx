/**
 * E-mail in the thread (docs/decisions.md#e-mail-in-depth): a customer's HTML mail, sanitized by
 * the server, shown in a sandboxed frame (no scripts; remote images blocked until "Show images");
 * the Cc/Bcc of a reply, prefilled from the thread; forwarding to an outside address.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { EmailAddress, Message, ReplyRecipients } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { thread } from './thread-store.ts';

const FRAME_STYLE =
  'body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2937;overflow-wrap:anywhere}' +
  'img{max-width:100%;height:auto}table{max-width:100%}' +
  'img[data-parley-src]{display:inline-block;min-width:120px;min-height:48px;border:1px dashed #9ca3af;border-radius:4px;background:#f3f4f6}' +
  '.parley-inline-image{color:#6b7280}a{color:#2563eb}';

/** The frame's document: its own CSP (remote images only once asked), links opening outside the app. */
function frameDocument(html: string, images: boolean): string {
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:${images ? ' https: http:' : ''}`;
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><base target="_blank"><style>${FRAME_STYLE}</style></head><body>${html}</body></html>`;
}

/**
 * The sanitized HTML in an iframe without scripts (sandbox: no `allow-scripts`, so same-origin is
 * only there to size the frame to its content); links open in a new tab.
 */
export function EmailHtml({ message }: { message: Message }) {
  const [html, setHtml] = useState(message.html_sanitized ?? '');
  const [images, setImages] = useState(false);
  const [plain, setPlain] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  useEffect(() => {
    if (!images) setHtml(message.html_sanitized ?? '');
  }, [message.html_sanitized]);

  const fit = () => {
    const doc = frame.current?.contentDocument;
    if (frame.current && doc?.documentElement) frame.current.style.height = `${Math.min(Math.max(doc.documentElement.scrollHeight, 40), 640)}px`;
  };

  async function showImages() {
    setError(null);
    try {
      const list = await api.get<Message[]>(`/api/v1/conversations/${message.conversation_id}/messages?limit=200&images=1`);
      const armed = list.find((m) => m.id === message.id)?.html_sanitized;
      if (!armed) throw new Error('This message is too old to load its images here.');
      setHtml(armed);
      setImages(true);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  const blocked = (message.remote_images ?? 0) > 0 && !images;
  return (
    <div class="email-html">
      <div class="email-html-bar">
        {blocked && !plain && (
          <button type="button" class="btn small" onClick={() => void showImages()}>
            Show images ({message.remote_images})
          </button>
        )}
        {blocked && !plain && <span class="muted small">Remote images are blocked so senders cannot track when the mail is read.</span>}
        <button type="button" class="btn small ghost" aria-pressed={plain} onClick={() => setPlain(!plain)}>
          {plain ? 'Show formatted' : 'Plain text'}
        </button>
      </div>
      <Notice>{error}</Notice>
      {plain ? (
        <p class="msg-text" dir="auto">
          {message.content}
        </p>
      ) : (
        <iframe
          ref={frame}
          class="email-frame"
          title="E-mail content"
          sandbox="allow-same-origin allow-popups allow-popups-to-escape-sandbox"
          referrerpolicy="no-referrer"
          srcdoc={frameDocument(html, images)}
          onLoad={fit}
        />
      )}
    </div>
  );
}

/** Recipients of a forward or copy list, for the thread. */
export const addressText = (list: EmailAddress[]) => list.map((a) => a.address).join(', ');

/** "a@x.test, b@y.test" → the addresses (the server checks them). */
export const parseAddresses = (text: string) =>
  text
    .split(/[,;\s]+/)
    .map((a) => a.trim())
    .filter(Boolean);

/** The Cc/Bcc of an e-mail reply, prefilled from the thread (GET …/reply-recipients). */
export function useEmailRecipients(conversationId: string, enabled: boolean) {
  const [defaults, setDefaults] = useState<ReplyRecipients | null>(null);
  const [cc, setCc] = useState('');
  const [bcc, setBcc] = useState('');
  const load = () =>
    api
      .get<ReplyRecipients>(`/api/v1/conversations/${conversationId}/reply-recipients`)
      .then((r) => {
        setDefaults(r);
        setCc(addressText(r.cc));
        setBcc('');
      })
      .catch(() => setDefaults(null));
  useEffect(() => {
    if (enabled) void load();
  }, [conversationId, enabled]);
  return { defaults, cc, setCc, bcc, setBcc, reset: load, body: () => ({ cc: parseAddresses(cc), bcc: parseAddresses(bcc) }) };
}

export function EmailRecipients({ recipients: r }: { recipients: ReturnType<typeof useEmailRecipients> }) {
  const [open, setOpen] = useState(false);
  if (!r.defaults) return null;
  const to = r.defaults.to;
  return (
    <div class="email-recipients">
      <div class="email-to small">
        <span class="muted">To</span> <span class="email-to-address">{to ? (to.name ? `${to.name} <${to.address}>` : to.address) : '—'}</span>
        {!open && r.cc && <span class="muted email-cc-summary">Cc {r.cc}</span>}
        <button type="button" class="link-btn small" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide Cc/Bcc' : 'Cc/Bcc'}
        </button>
      </div>
      {open && (
        <div class="email-copies">
          <label class="field inline">
            <span class="field-label">Cc</span>
            <input
              class="input"
              type="text"
              inputMode="email"
              autoComplete="off"
              placeholder="name@example.com, …"
              value={r.cc}
              onInput={(e) => r.setCc(e.currentTarget.value)}
            />
          </label>
          <label class="field inline">
            <span class="field-label">Bcc</span>
            <input
              class="input"
              type="text"
              inputMode="email"
              autoComplete="off"
              placeholder="name@example.com, …"
              value={r.bcc}
              onInput={(e) => r.setBcc(e.currentTarget.value)}
            />
          </label>
        </div>
      )}
      {r.defaults.signature && (
        <div class="email-signature muted small" title="Appended to your reply">
          -- {r.defaults.signature.split('\n')[0]}…
        </div>
      )}
    </div>
  );
}

/** Forward the conversation (or one message) to outside addresses. */
export function ForwardPanel({ conversationId, messageIds, onClose }: { conversationId: string; messageIds: string[] | null; onClose: () => void }) {
  const [to, setTo] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function send(e: Event) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const sent = await api.post<Message>(`/api/v1/conversations/${conversationId}/forward`, {
        to: parseAddresses(to),
        note,
        ...(messageIds ? { message_ids: messageIds } : {}),
      });
      const open = thread.value;
      if (open?.id === conversationId && !open.messages.some((m) => m.id === sent.id)) thread.value = { ...open, messages: [...open.messages, sent] };
      onClose();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="forward-panel card stack" aria-label="Forward" onSubmit={(e) => void send(e)}>
      <div class="card-row">
        <strong class="grow">{messageIds ? 'Forward this message' : 'Forward the conversation'}</strong>
        <button type="button" class="btn small ghost" onClick={onClose}>
          Cancel
        </button>
      </div>
      <label class="field">
        <span class="field-label">To</span>
        <input
          class="input"
          type="text"
          inputMode="email"
          required
          autoFocus
          placeholder="colleague@example.com"
          value={to}
          onInput={(e) => setTo(e.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span class="field-label">Note (optional)</span>
        <textarea class="input" rows={2} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      </label>
      <Notice>{error}</Notice>
      <div class="row-end">
        <button type="submit" class="btn primary" disabled={busy || !to.trim()}>
          {busy ? 'Forwarding…' : 'Forward'}
        </button>
      </div>
    </form>
  );
}
