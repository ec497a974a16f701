/**
 * The widget's DOM: a bubble and a chat panel in an open shadow root (the host page's CSS
 * cannot reach in, ours cannot leak out). Message text is only ever set as text, never HTML.
 */
import type { PublicWidget, VisitorMessage } from './api.ts';
import { textColorOn } from './contrast.ts';
import { css } from './styles.ts';

export type ViewHandlers = {
  /** The visitor pressed send; `text` is trimmed and not empty. */
  onSend: (text: string) => void;
  /** The visitor picked a file (an image or a PDF) to send. */
  onAttach: (file: File) => void;
  /** A failed message was clicked: send it again. */
  onRetry: (clientId: string) => void;
  onOpen: () => void;
  /** A rating (1–5) was chosen on the satisfaction question: resolves once stored (a 409 counts as stored). */
  onRate: (token: string, rating: number) => Promise<void>;
  /** The text in the message box changed. */
  onInput: (text: string) => void;
};

/** An agent's typing shows this long after its last update (core/events/catalogue.ts TYPING_EXPIRES_MS). */
const TYPING_EXPIRES_MS = 6000;

export type View = ReturnType<typeof createView>;

const chatIcon =
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M21 11.5a8.4 8.4 0 0 1-9 8.4 8.6 8.6 0 0 1-3.9-.9L3 20.5l1.5-4.6A8.4 8.4 0 1 1 21 11.5z"/></svg>';
const clipIcon =
  '<svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M21 12.5l-8.5 8.5a5 5 0 0 1-7-7L14 5.5a3.3 3.3 0 0 1 4.7 4.7l-8.5 8.5a1.7 1.7 0 0 1-2.4-2.4L15.5 8.6"/></svg>';
const closeIcon =
  '<svg viewBox="0 0 24 24" width="26" height="26" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" aria-hidden="true"><path d="M6 9l6 6 6-6"/></svg>';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const isHttpUrl = (value: string | undefined) => !!value && /^https?:\/\//i.test(value);

/** "We're away right now. Back Mon 09:00." (the visitor's locale and time zone), or '' within hours. */
/** `numeric` hours on a 12-hour clock ("9:00 AM", not "09:00 AM"), `2-digit` on a 24-hour one ("09:00"). */
const HOUR: 'numeric' | '2-digit' = /h1[12]/.test(new Intl.DateTimeFormat(undefined, { hour: 'numeric' }).resolvedOptions().hourCycle ?? '')
  ? 'numeric'
  : '2-digit';

export function awayText(widget: Pick<PublicWidget, 'business_hours'>, now = new Date()): string {
  const hours = widget.business_hours;
  if (!hours || !hours.enabled || hours.is_open) return '';
  if (!hours.next_open_at) return "We're away right now.";
  const at = new Date(hours.next_open_at);
  if (isNaN(at.getTime())) return "We're away right now.";
  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  const time = at.toLocaleTimeString(undefined, { hour: HOUR, minute: '2-digit' });
  const when =
    at.toDateString() === now.toDateString()
      ? `today at ${time}`
      : at.toDateString() === tomorrow.toDateString()
        ? `tomorrow at ${time}`
        : `${at.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' })}, ${time}`;
  return `We're away right now. Back ${when}.`;
}

const timeOf = (iso: string) => {
  const date = new Date(iso);
  return isNaN(date.getTime()) ? '' : date.toLocaleString();
};

/** `filesBase`: where Parley serves files (its origin's /api/v1/uploads), shown inline as pictures. */
export function createView(widget: PublicWidget, handlers: ViewHandlers, filesBase: string) {
  const host = el('div');
  host.id = 'parley-widget';
  const shadow = host.attachShadow({ mode: 'open' });
  const style = el('style');
  style.textContent = css;
  const root = el('div', 'root');
  root.style.setProperty('--primary', widget.primary_color);
  root.style.setProperty('--on-primary', textColorOn(widget.primary_color));

  // Panel
  const panel = el('div', 'panel');
  panel.hidden = true;
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-label', widget.welcome_heading || 'Chat');

  const header = el('div', 'header');
  const brand = el('div', 'brand');
  const logo = el('img', 'logo');
  logo.alt = '';
  logo.hidden = !isHttpUrl(widget.logo_url ?? undefined);
  if (!logo.hidden) logo.src = widget.logo_url as string;
  const heading = el('h2', 'heading', widget.welcome_heading);
  brand.append(logo, heading);
  const tagline = el('p', 'tagline', widget.welcome_tagline);
  // Out of hours: said in the header whatever the online badge setting, with the next opening in the visitor's own time.
  const hours = el('p', 'hours', awayText(widget));
  hours.hidden = hours.textContent === '';
  const status = el('div', 'status');
  const dot = el('span', 'dot');
  const statusText = el('span');
  status.append(dot, statusText);
  const close = el('button', 'close');
  close.type = 'button';
  close.setAttribute('aria-label', 'Close chat');
  close.innerHTML = closeIcon;
  header.append(brand, tagline, hours, status, close);

  const list = el('div', 'messages');
  list.setAttribute('aria-live', 'polite');
  const empty = el('p', 'empty', "Send us a message and we'll get back to you here.");
  list.append(empty);
  // Below the messages, outside the scrolled list: "Agent is typing…".
  const typingLine = el('div', 'typing');
  typingLine.setAttribute('role', 'status');
  typingLine.hidden = true;
  const dots = el('span', 'dots');
  dots.setAttribute('aria-hidden', 'true');
  dots.append(el('i'), el('i'), el('i'));
  typingLine.append(dots, document.createTextNode('Agent is typing…'));

  const composer = el('form', 'composer');
  const input = el('textarea', 'input');
  input.rows = 1;
  input.maxLength = 10000;
  input.placeholder = 'Write a message…';
  input.setAttribute('aria-label', 'Message');
  input.dir = 'auto';
  const send = el('button', 'send', 'Send');
  send.type = 'submit';
  // Images and PDFs only: what Parley accepts from visitors (POST /api/v1/visitor/uploads).
  const picker = el('input');
  picker.type = 'file';
  picker.accept = 'image/*,application/pdf';
  picker.hidden = true;
  const attach = el('button', 'attach');
  attach.type = 'button';
  attach.setAttribute('aria-label', 'Attach an image or PDF');
  attach.innerHTML = clipIcon;
  composer.append(attach, picker, input, send);
  panel.append(header, list, typingLine, composer);

  // Bubble
  const bubble = el('button', 'bubble');
  bubble.type = 'button';
  bubble.setAttribute('aria-label', 'Open chat');
  bubble.innerHTML = chatIcon;
  const unread = el('span', 'unread');
  unread.hidden = true;
  bubble.append(unread);

  root.append(panel, bubble);
  shadow.append(style, root);

  let unreadCount = 0;
  const nodes = new Map<string, HTMLElement>();

  const setOnline = (online: boolean) => {
    // Out of hours the away line says it all: "online" beside it would promise an answer now.
    status.hidden = !widget.show_online_badge || !hours.hidden;
    dot.className = online ? 'dot online' : 'dot';
    statusText.textContent = online ? "We're online" : "We'll reply as soon as we can";
  };
  setOnline(widget.is_online);

  const isOpen = () => !panel.hidden;
  /** The badge on the bubble, and the bubble's name saying it too (its name includes what it shows). */
  const showUnread = (count: number) => {
    unreadCount = count;
    unread.textContent = String(count);
    unread.hidden = count === 0;
    const news = count === 0 ? '' : `, ${count} new ${count === 1 ? 'message' : 'messages'}`;
    bubble.setAttribute('aria-label', isOpen() ? 'Close chat' : `Open chat${news}`);
  };
  const setOpen = (open: boolean) => {
    panel.hidden = !open;
    root.classList.toggle('open', open);
    bubble.setAttribute('aria-expanded', String(open));
    showUnread(open ? 0 : unreadCount);
    if (open) {
      list.scrollTop = list.scrollHeight;
      input.focus();
      handlers.onOpen();
    }
  };

  const scrollToEnd = () => {
    list.scrollTop = list.scrollHeight;
  };

  /** The 1–5 buttons under the satisfaction question, or the rating once given. */
  function ratingRow(csat: NonNullable<VisitorMessage['csat']>): HTMLElement {
    const row = el('span', 'csat');
    const done = (rating: number) => {
      row.textContent = '';
      row.append(el('span', 'csat-done', `Thanks! You rated us ${rating} of 5.`));
    };
    if (csat.rating !== null) {
      done(csat.rating);
      return row;
    }
    row.setAttribute('role', 'group');
    row.setAttribute('aria-label', 'Your rating, 1 (very bad) to 5 (very good)');
    const labels = ['Very bad', 'Bad', 'OK', 'Good', 'Very good'];
    for (let n = 1; n <= 5; n++) {
      const button = el('button', 'csat-option', String(n));
      button.type = 'button';
      button.title = labels[n - 1];
      button.setAttribute('aria-label', `${n} of 5, ${labels[n - 1]}`);
      button.addEventListener('click', () => {
        for (const b of row.querySelectorAll('button')) b.disabled = true;
        handlers.onRate(csat.token, n).then(
          () => {
            csat.rating = n;
            done(n);
          },
          () => {
            for (const b of row.querySelectorAll('button')) b.disabled = false;
          },
        );
      });
      row.append(button);
    }
    return row;
  }

  function render(node: HTMLElement, message: Pick<VisitorMessage, 'sender_type' | 'content' | 'attachments' | 'created_at' | 'csat'>) {
    node.className = `msg ${message.sender_type}`;
    node.textContent = '';
    if (message.sender_type === 'ai') node.append(el('span', 'who', 'AI assistant'));
    // Its own direction (dir=auto): a message in Arabic or Hebrew reads right to left, from its right edge.
    const text = el('span', 'text', message.content);
    text.dir = 'auto';
    node.append(text);
    const files = message.attachments.filter((a) => isHttpUrl(a.url));
    if (files.length) {
      const box = el('span', 'files');
      for (const file of files) {
        const link = el('a', undefined, file.filename || 'Attachment');
        link.href = file.url as string;
        link.target = '_blank';
        link.rel = 'noopener noreferrer';
        // Parley's own files (what the visitor or an agent uploaded) show as pictures; other links stay links.
        if (file.content_type?.startsWith('image/') && file.url?.startsWith(`${filesBase}/`)) {
          link.textContent = '';
          const image = el('img', 'picture');
          image.src = file.url;
          image.alt = file.filename || 'Image';
          link.append(image);
        }
        box.append(link);
      }
      node.append(box);
    }
    if (message.csat) node.append(ratingRow(message.csat));
    node.title = timeOf(message.created_at);
  }

  let typingExpiry: ReturnType<typeof setTimeout> | undefined;
  /** An agent typing a reply: shown until a stop, their message, or TYPING_EXPIRES_MS without news. */
  function showAgentTyping(typing: boolean) {
    clearTimeout(typingExpiry);
    typingLine.hidden = !typing;
    if (typing) typingExpiry = setTimeout(() => (typingLine.hidden = true), TYPING_EXPIRES_MS);
  }

  /** Shows a stored message once (by id), in time order. */
  function showMessage(message: VisitorMessage) {
    let node = nodes.get(message.id);
    if (!node) {
      node = el('div');
      node.dataset.id = message.id;
      node.dataset.createdAt = message.created_at;
      nodes.set(message.id, node);
      const after = [...list.querySelectorAll<HTMLElement>('.msg:not(.pending):not(.failed)')].find((n) => (n.dataset.createdAt ?? '') > message.created_at);
      list.insertBefore(node, after ?? firstPending() ?? null);
      if (!isOpen() && message.sender_type !== 'customer') showUnread(unreadCount + 1);
    }
    render(node, message);
    empty.remove();
    if (message.sender_type === 'agent') showAgentTyping(false);
    scrollToEnd();
  }

  const firstPending = () => list.querySelector<HTMLElement>('.msg.pending, .msg.failed');

  /** The visitor's message while it is being sent (a file: its name). */
  function addPending(clientId: string, text: string) {
    const node = el('div');
    node.dataset.clientId = clientId;
    render(node, { sender_type: 'customer', content: text, attachments: [], created_at: new Date().toISOString() });
    node.classList.add('pending');
    list.append(node);
    empty.remove();
    scrollToEnd();
  }

  function pendingNode(clientId: string) {
    return list.querySelector<HTMLElement>(`[data-client-id="${clientId}"]`);
  }

  /** The pending message was stored: it becomes that message (or goes, if it already showed). */
  function confirmPending(clientId: string, message: VisitorMessage) {
    pendingNode(clientId)?.remove();
    showMessage(message);
  }

  function failPending(clientId: string, reason: string) {
    const node = pendingNode(clientId);
    if (!node) return;
    node.classList.remove('pending');
    node.classList.add('failed');
    node.querySelector('.note')?.remove();
    node.append(el('span', 'note', reason));
    node.onclick = () => {
      node.onclick = null;
      node.classList.remove('failed');
      node.classList.add('pending');
      node.querySelector('.note')?.remove();
      handlers.onRetry(clientId);
    };
  }

  bubble.addEventListener('click', () => setOpen(!isOpen()));
  close.addEventListener('click', () => setOpen(false));
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      setOpen(false);
      bubble.focus();
    }
  });
  const submit = () => {
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    handlers.onSend(text);
  };
  attach.addEventListener('click', () => picker.click());
  picker.addEventListener('change', () => {
    const file = picker.files?.[0];
    picker.value = '';
    if (file) handlers.onAttach(file);
  });
  composer.addEventListener('submit', (event) => {
    event.preventDefault();
    submit();
  });
  input.addEventListener('input', () => handlers.onInput(input.value));
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });

  document.body.append(host);

  /** Another visitor now (signed in or out): the messages shown go. */
  function clearMessages() {
    nodes.clear();
    list.replaceChildren(empty);
    showUnread(0);
  }

  return { showMessage, addPending, confirmPending, failPending, setOpen, setOnline, showAgentTyping, clearMessages };
}
