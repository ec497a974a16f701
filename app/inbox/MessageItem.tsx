/** One message of the thread: whose it is, its attachments (images inline), and its delivery; private notes marked as such. */
import type { Attachment, Member, Message } from '../types.ts';
import { clockTime } from '../ui/time.ts';
import { PaperclipIcon } from '../ui/PaperclipIcon.tsx';

const STATUS_LABELS = { queued: 'Sending…', sent: 'Sent', delivered: 'Delivered', read: 'Read', failed: 'Failed' } as const;

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
  if (!file.url) return <span class="attachment">{file.filename ?? 'Attachment'}</span>;
  // An image Parley does not serve is only linked: loading it would tell whoever chose the URL
  // (a visitor, a customer) that an agent is looking, and from where.
  const host = foreignHost(file.url);
  if (host !== null)
    return (
      <a class="attachment" href={file.url} target="_blank" rel="noopener noreferrer nofollow" referrerpolicy="no-referrer">
        <PaperclipIcon /> {file.filename ?? 'Attachment'} <span class="muted">· {host}</span>
      </a>
    );
  if (file.content_type?.startsWith('image/'))
    return (
      <a href={file.url} target="_blank" rel="noopener noreferrer" class="attachment-image">
        <img src={file.url} alt={file.filename ?? 'Image'} loading="lazy" />
      </a>
    );
  return (
    <a class="attachment" href={file.url} target="_blank" rel="noopener noreferrer">
      <PaperclipIcon /> {file.filename ?? 'Attachment'}
      {file.size ? <span class="muted"> · {Math.max(1, Math.round(file.size / 1024))} KB</span> : null}
    </a>
  );
}

/** A note's text with each `@Name` of a teammate highlighted (as text, never markup). */
function NoteText({ text, members }: { text: string; members: Member[] }) {
  const names = members.map((x) => `@${x.name}`).filter((n) => n.length > 1).sort((a, b) => b.length - a.length);
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

export function MessageItem({ message: m, customerName, members }: { message: Message; customerName: string; members: Member[] }) {
  if (m.sender_type === 'system')
    return (
      <div class="msg-system" data-id={m.id}>
        {m.content}
      </div>
    );
  const outbound = m.sender_type !== 'customer';
  return (
    <div class={`msg ${m.sender_type}${outbound ? ' out' : ' in'}${m.private ? ' note' : ''}`} data-id={m.id} data-private={m.private ? 'true' : undefined}>
      <div class="msg-meta">
        <span class="msg-author">{author(m, customerName, members)}</span>
        {m.sender_type === 'ai' && <span class="pill accent">AI</span>}
        {m.private && <span class="pill note-tag" title="Only your team sees this note">Private note</span>}
        <time dateTime={m.created_at}>{clockTime(m.created_at)}</time>
      </div>
      <div class="msg-bubble">
        {m.content && <p class="msg-text">{m.private ? <NoteText text={m.content} members={members} /> : m.content}</p>}
        {m.attachments.map((file) => (
          <AttachmentView file={file} />
        ))}
      </div>
      {outbound && m.delivery_status && (
        <div class={`msg-status ${m.delivery_status}`} data-status={m.delivery_status}>
          {STATUS_LABELS[m.delivery_status]}
          {m.delivery_status === 'failed' && m.error ? `: ${m.error}` : ''}
        </div>
      )}
    </div>
  );
}
