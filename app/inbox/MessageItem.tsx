/** One message of the thread: whose it is, its attachments (images inline), and its delivery. */
import type { Attachment, Member, Message } from '../types.ts';
import { clockTime } from '../ui/time.ts';
import { PaperclipIcon } from '../ui/PaperclipIcon.tsx';

const STATUS_LABELS = { queued: 'Sending…', sent: 'Sent', delivered: 'Delivered', read: 'Read', failed: 'Failed' } as const;

function AttachmentView({ file }: { file: Attachment }) {
  if (!file.url) return <span class="attachment">{file.filename ?? 'Attachment'}</span>;
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
    <div class={`msg ${m.sender_type}${outbound ? ' out' : ' in'}`} data-id={m.id}>
      <div class="msg-meta">
        <span class="msg-author">{author(m, customerName, members)}</span>
        {m.sender_type === 'ai' && <span class="pill accent">AI</span>}
        <time dateTime={m.created_at}>{clockTime(m.created_at)}</time>
      </div>
      <div class="msg-bubble">
        {m.content && <p class="msg-text">{m.content}</p>}
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
