/** The reply box: Enter sends, Shift+Enter breaks the line; `/` opens the canned responses; files are uploaded first, then referenced. */
import { useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Attachment, Message } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { PaperclipIcon } from '../ui/PaperclipIcon.tsx';
import { thread } from './thread-store.ts';
import { can } from '../session.ts';
import { CannedPicker, useCannedPicker } from './CannedPicker.tsx';

/** `closedReason`: free-form replies are refused now (WhatsApp's window closed): the box says why and does not send. */
export function Composer({ conversationId, channelLabel, closedReason = null }: { conversationId: string; channelLabel: string; closedReason?: string | null }) {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<Attachment[]>([]);
  const [busy, setBusy] = useState<'' | 'uploading' | 'sending'>('');
  const [error, setError] = useState<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const canned = useCannedPicker(can('canned_responses.read') ? text : '', conversationId, (content) => {
    setText(content);
    // After the render: the caret at the end, ready to edit or send.
    requestAnimationFrame(() => {
      const box = input.current;
      if (!box) return;
      box.focus();
      box.setSelectionRange(content.length, content.length);
    });
  }, setError);

  async function upload(list: FileList | null): Promise<void> {
    if (!list?.length) return;
    setBusy('uploading');
    setError(null);
    try {
      for (const file of Array.from(list)) {
        const form = new FormData();
        form.append('file', file);
        const uploaded = await api.upload<Attachment>(`/api/v1/conversations/${conversationId}/upload`, form);
        setFiles((current) => [...current, uploaded]);
      }
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy('');
      if (picker.current) picker.current.value = '';
    }
  }

  async function send(): Promise<void> {
    const content = text.trim() || files.map((f) => f.filename).join(', ');
    if (!content || busy || closedReason) return;
    setBusy('sending');
    setError(null);
    try {
      const sent = await api.post<Message>(`/api/v1/conversations/${conversationId}/messages`, { content, attachments: files });
      setText('');
      setFiles([]);
      const open = thread.value;
      if (open?.id === conversationId && !open.messages.some((m) => m.id === sent.id)) thread.value = { ...open, messages: [...open.messages, sent] };
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy('');
    }
  }

  const onKeyDown = (e: KeyboardEvent) => {
    if (canned.onKeyDown(e)) return e.preventDefault();
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void send();
    }
  };

  return (
    <form class="composer" onSubmit={(e) => (e.preventDefault(), void send())}>
      <Notice>{error}</Notice>
      {files.length > 0 && (
        <ul class="composer-files" aria-label="Attachments">
          {files.map((f, i) => (
            <li class="chip">
              <PaperclipIcon /> {f.filename}
              <button type="button" class="chip-x" aria-label={`Remove ${f.filename}`} onClick={() => setFiles(files.filter((_, j) => j !== i))}>×</button>
            </li>
          ))}
        </ul>
      )}
      <CannedPicker picker={canned} id={`canned-${conversationId}`} />
      <textarea
        ref={input}
        class="composer-input"
        aria-label="Reply"
        placeholder={closedReason ?? `Reply via ${channelLabel}… (Enter to send, Shift+Enter for a new line, / for canned responses)`}
        disabled={Boolean(closedReason)}
        aria-autocomplete="list"
        aria-controls={canned.open ? `canned-${conversationId}` : undefined}
        aria-activedescendant={canned.open ? `canned-${conversationId}-${canned.active}` : undefined}
        rows={3}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div class="composer-bar">
        <input ref={picker} type="file" multiple hidden onChange={(e) => void upload(e.currentTarget.files)} aria-label="Attach files" />
        <button type="button" class="btn ghost" onClick={() => picker.current?.click()} disabled={busy === 'uploading'}>
          <PaperclipIcon /> {busy === 'uploading' ? 'Uploading…' : 'Attach'}
        </button>
        <button type="submit" class="btn primary" disabled={Boolean(busy) || Boolean(closedReason) || (!text.trim() && !files.length)}>
          Send
        </button>
      </div>
    </form>
  );
}
