/** One message of the thread: whose it is, its attachments (images inline with a lightbox, audio and video players, files as links), its delivery ticks; private notes marked as such. */
import { useState } from 'preact/hooks';
import type { Attachment, Member, Message } from '../types.ts';
import { clockTime } from '../ui/time.ts';
import { Modal } from '../ui/Modal.tsx';
import { PaperclipIcon } from '../ui/PaperclipIcon.tsx';
import { addressText, EmailHtml } from './Email.tsx';
import { ScheduledControls } from './Scheduled.tsx';
import { SendAgain } from './SendAgain.tsx';

const STATUS_LABELS = { scheduled: 'Scheduled', queued: 'Sending…', sent: 'Sent', delivered: 'Delivered', read: 'Read', failed: 'Failed' } as const;
/** ✓ sent, ✓✓ delivered, blue ✓✓ read (as the customer's own app shows them). */
const TICKS = { scheduled: '◷', queued: '◷', sent: '✓', delivered: '✓✓', read: '✓✓', failed: '!' } as const;

const sizeText = (size?: number) =>
  size ? ` · ${size >= 1024 * 1024 ? `${(size / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(size / 1024))} KB`}` : '';

function Lightbox({ file, onClose }: { file: Attachment; onClose: () => void }) {
  return (
    <Modal class="lightbox" label={file.filename ?? 'Image'} onClose={onClose}>
      <img src={file.url} alt={file.filename ?? 'Image'} />
      <div class="lightbox-bar">
        <a class="btn ghost small" href={file.url} target="_blank" rel="noopener noreferrer">
          Open original
        </a>
        <button type="button" class="btn small" autoFocus onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}

/** The host of a URL that is not Parley's own, or null for Parley's (its uploads). */
function foreignHost(url: string): string | null {
  try {
    const parsed = new URL(url, location.href);
    return parsed.origin === location.origin ? null : parsed.host;
  } catch {
    return 'an unknown address';
  }
}

function AttachmentView({ file }: { file: Attachment }) {
  const [zoomed, setZoomed] = useState(false);
  const name = file.filename ?? 'Attachment';
  if (file.status === 'pending')
    return (
      <span class="attachment pending" data-status="pending">
        <span class="spinner small" aria-hidden="true" /> Downloading {file.filename ?? 'the file'}…
      </span>
    );
  if (file.status === 'failed' || !file.url)
    return (
      <span class="attachment failed" data-status={file.status ?? 'missing'} title={file.error}>
        <PaperclipIcon /> {name}
        {file.error ? <span class="muted"> · not downloaded: {file.error}</span> : null}
      </span>
    );
  // A file Parley does not serve is only linked: loading it would tell whoever chose the URL
  // (a visitor, a customer) that an agent is looking, and from where.
  const host = foreignHost(file.url);
  if (host !== null)
    return (
      <a class="attachment" href={file.url} target="_blank" rel="noopener noreferrer nofollow" referrerpolicy="no-referrer">
        <PaperclipIcon /> {name} <span class="muted">· {host}</span>
      </a>
    );
  const type = file.content_type ?? '';
  if (type.startsWith('image/') && type !== 'image/heic' && type !== 'image/heif')
    return (
      <>
        <button type="button" class="attachment-image" aria-label={`View ${name}`} onClick={() => setZoomed(true)}>
          <img src={file.url} alt={name} loading="lazy" />
        </button>
        {zoomed && <Lightbox file={file} onClose={() => setZoomed(false)} />}
      </>
    );
  if (type.startsWith('audio/'))
    return (
      <div class="attachment-media">
        <audio controls preload="metadata" src={file.url} aria-label={name} />
        <a class="muted small" href={file.url} target="_blank" rel="noopener noreferrer">
          {name}
        </a>
      </div>
    );
  if (type.startsWith('video/'))
    return (
      <div class="attachment-media">
        <video controls preload="metadata" src={file.url} aria-label={name} />
      </div>
    );
  return (
    <a class="attachment" href={file.url} target="_blank" rel="noopener noreferrer" download={name}>
      <PaperclipIcon /> {name}
      <span class="muted">{sizeText(file.size)}</span>
    </a>
  );
}

/** A note's text with each `@Name` of a teammate highlighted (as text, never markup). */
function NoteText({ text, members }: { text: string; members: Member[] }) {
  const names = members
    .map((x) => `@${x.name}`)
    .filter((n) => n.length > 1)
    .sort((a, b) => b.length - a.length);
  if (!names.length) return <>{text}</>;
  const escaped = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const parts = text.split(new RegExp(`(${escaped.join('|')})`, 'g'));
  return <>{parts.map((part, i) => (i % 2 === 1 ? <span class="mention-chip">{part}</span> : part))}</>;
}

function author(m: Message, customerName: string, members: Member[]): string {
  if (m.sender_type === 'customer') return customerName;
  if (m.sender_type === 'ai') return 'AI agent';
  if (m.sender_type === 'system') return 'Parley';
  return members.find((x) => x.user_id === m.sender_id)?.name ?? 'Agent';
}

/** `onForward`: offers "Forward" on this message (e-mail conversations). `found`: the message a link led to (a search hit, a mention), marked. */
export function MessageItem({
  message: m,
  customerName,
  members,
  onForward,
  found,
}: {
  message: Message;
  customerName: string;
  members: Member[];
  onForward?: () => void;
  found?: boolean;
}) {
  // Parley's own notices (a merge) are a line in the thread; an automatic message sent to the
  // customer (the away reply, the satisfaction question) reads as a reply, marked automatic.
  if (m.sender_type === 'system' && !m.delivery_status)
    return (
      <div class={`msg-system${found ? ' found' : ''}`} data-id={m.id} dir="auto">
        {m.content}
      </div>
    );
  const outbound = m.sender_type !== 'customer';
  const forwardTo = m.email?.forward_to ?? null;
  // Who else got it: a customer's Cc, a reply's Cc and Bcc.
  const cc = m.email?.cc ?? [];
  const bcc = m.email?.bcc ?? [];
  const copies = [cc.length ? `Cc ${addressText(cc)}` : '', bcc.length ? `Bcc ${addressText(bcc)}` : ''].filter(Boolean).join(' · ');
  const scheduled = m.delivery_status === 'scheduled';
  return (
    <div
      class={`msg ${m.sender_type}${outbound ? ' out' : ' in'}${m.private ? ' note' : ''}${scheduled ? ' scheduled' : ''}${found ? ' found' : ''}`}
      data-id={m.id}
      data-private={m.private ? 'true' : undefined}
    >
      <div class="msg-meta">
        <span class="msg-author" dir="auto">
          {author(m, customerName, members)}
        </span>
        {m.sender_type === 'ai' && <span class="pill accent">AI</span>}
        {m.sender_type === 'system' && (
          <span class="pill auto-tag" title="Sent by Parley on its own, not by a teammate">
            Automatic
          </span>
        )}
        {forwardTo ? (
          <span class="pill note-tag" title="Only your team sees this in the thread">
            Forwarded to {addressText(forwardTo)}
          </span>
        ) : (
          m.private && (
            <span class="pill note-tag" title="Only your team sees this note">
              Private note
            </span>
          )
        )}
        {scheduled && (
          <span class="pill scheduled-tag" title="Not sent yet: it goes out at its time">
            Scheduled
          </span>
        )}
        <time dateTime={m.created_at}>{clockTime(m.created_at)}</time>
        {onForward && !m.private && (
          <button type="button" class="link-btn small msg-forward" aria-label="Forward this message" onClick={onForward}>
            Forward
          </button>
        )}
      </div>
      {copies && <div class="msg-copies small muted">{copies}</div>}
      <div class="msg-bubble">
        {m.html_sanitized ? (
          <EmailHtml message={m} />
        ) : (
          m.content && (
            <p class="msg-text" dir="auto">
              {m.private ? <NoteText text={m.content} members={members} /> : m.content}
            </p>
          )
        )}
        {m.attachments.map((file) => (
          <AttachmentView file={file} />
        ))}
      </div>
      {scheduled && <ScheduledControls key={`${m.id}:${m.send_at}:${m.content}`} message={m} />}
      {outbound && m.delivery_status && !scheduled && (
        <div class={`msg-status ${m.delivery_status}`} data-status={m.delivery_status}>
          <span class="ticks" aria-hidden="true">
            {TICKS[m.delivery_status]}
          </span>{' '}
          <span class="status-label">{STATUS_LABELS[m.delivery_status]}</span>
          {m.delivery_status === 'failed' && m.error ? `: ${m.error}` : ''}
          {m.delivery_status === 'failed' && !m.private && (m.sender_type === 'agent' || m.sender_type === 'ai') && <SendAgain message={m} />}
        </div>
      )}
    </div>
  );
}
