/**
 * The reply box: Enter sends, Shift+Enter breaks the line; `/` opens the canned responses; files are uploaded first, then referenced.
 * The Reply / Note switch: a note is private to the team (never sent to the customer) and
 * completes `@` with team members; the members still named `@Name` in the text when it is sent
 * are its `mentions`. "Send later" schedules the reply (`send_at`): it shows in the thread as
 * scheduled, with Edit and Cancel, until it goes out (Scheduled.tsx).
 *
 * Sending empties the box at once, so the agent writes the next message while this one goes
 * out. Messages go one at a time in the order they were sent from the box (the API stores a
 * conversation's replies in the order it receives them). One that fails comes back into the
 * box with the reason, and so do the ones sent after it that were still waiting (none of them
 * goes out before it): nothing typed is lost, nothing arrives out of order.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { can, me, members } from '../session.ts';
import type { Attachment, Member, Message } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { PaperclipIcon } from '../ui/PaperclipIcon.tsx';
import { thread } from './thread-store.ts';
import { CannedPicker, useCannedPicker } from './CannedPicker.tsx';
import { CollisionWarning } from './Presence.tsx';
import { typingSender } from './presence.ts';
import { EmailRecipients, useEmailRecipients } from './Email.tsx';
import { SendLaterPanel } from './Scheduled.tsx';
import { readDraft, writeDraft } from './drafts.ts';

type Mode = 'reply' | 'note';

/** What was in the box when it was sent, and as what: put back if the send fails. */
type Outgoing = { text: string; files: Attachment[]; picked: Member[]; mode: Mode; cancelled: boolean };

/** The `@query` being typed right before the caret, if any: where it starts and what it says. */
function mentionQuery(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const match = /(^|\s)@([^\s@]{0,30})$/.exec(before);
  if (!match) return null;
  return { start: caret - match[2].length - 1, query: match[2].toLowerCase() };
}

/** Active teammates whose name or e-mail starts a word with the query, at most 6. */
function suggestions(query: string): Member[] {
  return members.value
    .filter((m) => m.is_active)
    .filter(
      (m) =>
        !query ||
        m.name
          .toLowerCase()
          .split(/\s+/)
          .some((w) => w.startsWith(query)) ||
        m.email.toLowerCase().startsWith(query),
    )
    .slice(0, 6);
}

/** `closedReason`: replies are refused now (WhatsApp's window closed): the reply box says why and does not send; notes still work. */
export function Composer({
  conversationId,
  channelLabel,
  canReply = true,
  closedReason = null,
  email = false,
}: {
  conversationId: string;
  channelLabel: string;
  canReply?: boolean;
  closedReason?: string | null;
  /** An e-mail conversation: Cc/Bcc (prefilled from the thread) and the signature shown with a reply. */
  email?: boolean;
}) {
  const userId = me.value?.user.id;
  // What was being written here before (another conversation opened, a reload): app/inbox/drafts.ts.
  const [saved] = useState(() => readDraft(userId, conversationId));
  const [text, setText] = useState(saved?.text ?? '');
  const [files, setFiles] = useState<Attachment[]>(saved?.files ?? []);
  const [busy, setBusy] = useState<'' | 'uploading'>('');
  /** Messages sent from the box and not answered yet, oldest first (a failure brings them back). */
  const waiting = useRef<Outgoing[]>([]);
  const [sending, setSending] = useState(0);
  /** Each send starts once the one before it was answered. */
  const queue = useRef<Promise<void>>(Promise.resolve());
  const [error, setError] = useState<string | null>(null);
  const [chosenMode, setMode] = useState<Mode>(saved?.mode ?? 'reply');
  const [laterOpen, setLaterOpen] = useState(false);
  const mode: Mode = canReply ? chosenMode : 'note';
  const recipients = useEmailRecipients(conversationId, email && canReply);
  /** Members picked from the completion list (by membership id). */
  const [picked, setPicked] = useState<Member[]>([]);
  const [completion, setCompletion] = useState<{ start: number; query: string; index: number } | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const canned = useCannedPicker(
    can('canned_responses.read') ? text : '',
    conversationId,
    (content) => {
      setText(content);
      // After the render: the caret at the end, ready to edit or send.
      requestAnimationFrame(() => {
        const box = input.current;
        if (!box) return;
        box.focus();
        box.setSelectionRange(content.length, content.length);
      });
    },
    setError,
  );

  const options = mode === 'note' && completion ? suggestions(completion.query) : [];
  // Teammates (and, for a reply, the customer) see that this agent is typing; stopped when the conversation is left.
  const typing = useMemo(() => typingSender(conversationId), [conversationId]);
  useEffect(() => () => typing.stop(), [typing]);
  useEffect(() => writeDraft(userId, conversationId, { text, files, mode: chosenMode }), [text, files, chosenMode]);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);

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

  function send(sendAt?: Date): void {
    const content = text.trim() || files.map((f) => f.filename).join(', ');
    if (!content || busy || (mode === 'reply' && closedReason)) return;
    if (sendAt && mode !== 'reply') return;
    const body =
      mode === 'note'
        ? { content, attachments: files, private: true, mentions: [...new Set(picked.filter((m) => content.includes(`@${m.name}`)).map((m) => m.id))] }
        : { content, attachments: files, ...(email && recipients.defaults ? recipients.body() : {}), ...(sendAt ? { send_at: sendAt.toISOString() } : {}) };
    const draft: Outgoing = { text, files, picked, mode, cancelled: false };
    const resetRecipients = mode === 'reply' && email;
    waiting.current.push(draft);
    setSending(waiting.current.length);
    setError(null);
    setText('');
    typing.stop();
    setFiles([]);
    setPicked([]);
    setCompletion(null);
    setLaterOpen(false);
    queue.current = queue.current.then(async () => {
      if (draft.cancelled) return;
      try {
        const sent = await api.post<Message>(`/api/v1/conversations/${conversationId}/messages`, body);
        if (resetRecipients) void recipients.reset();
        const open = thread.value;
        if (open?.id === conversationId && !open.messages.some((m) => m.id === sent.id)) thread.value = { ...open, messages: [...open.messages, sent] };
      } catch (e) {
        // Back into the box: this one and every one after it (they must not go out before it).
        const back = waiting.current.slice(waiting.current.indexOf(draft));
        for (const d of back) d.cancelled = true;
        const restore = (now: string) => [...back.map((d) => d.text.trim()), now.trim()].filter(Boolean).join('\n\n');
        // A private note never comes back as a reply: with one among them, the box is a note.
        const noteAmong = back.some((d) => d.mode === 'note');
        if (!mounted.current) {
          // The agent opened another conversation meanwhile: back into this one's draft.
          const kept = readDraft(userId, conversationId);
          writeDraft(userId, conversationId, {
            text: restore(kept?.text ?? ''),
            files: [...back.flatMap((d) => d.files), ...(kept?.files ?? [])],
            mode: noteAmong ? 'note' : (kept?.mode ?? 'reply'),
          });
          return;
        }
        if (noteAmong) setMode('note');
        setText(restore);
        setFiles((now) => [...back.flatMap((d) => d.files), ...now]);
        setPicked((now) => [...back.flatMap((d) => d.picked), ...now]);
        const reason = (e as Error).message.replace(/([^.!?])$/, '$1.');
        const after = back.length - 1;
        setError(
          after > 0 ? `Not sent: ${reason} It is back in the box, with ${after === 1 ? 'the one' : `the ${after}`} you sent after it.` : `Not sent: ${reason}`,
        );
      } finally {
        waiting.current = waiting.current.filter((d) => d !== draft && !d.cancelled);
        setSending(waiting.current.length);
      }
    });
  }

  function onInput(e: Event): void {
    const el = e.currentTarget as HTMLTextAreaElement;
    setText(el.value);
    typing.input(el.value, mode === 'note');
    const found = mode === 'note' ? mentionQuery(el.value, el.selectionStart ?? el.value.length) : null;
    setCompletion(found ? { ...found, index: 0 } : null);
  }

  function choose(member: Member): void {
    if (!completion) return;
    const caret = completion.start + 1 + completion.query.length;
    const next = `${text.slice(0, completion.start)}@${member.name} ${text.slice(caret)}`;
    const at = completion.start + member.name.length + 2;
    // Written to the field at once (not after the render), so keys typed right after land at the caret.
    const el = input.current;
    if (el) {
      el.value = next;
      el.setSelectionRange(at, at);
      el.focus();
    }
    setText(next);
    setPicked((current) => (current.some((m) => m.id === member.id) ? current : [...current, member]));
    setCompletion(null);
  }

  const onKeyDown = (e: KeyboardEvent) => {
    if (options.length && completion) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const step = e.key === 'ArrowDown' ? 1 : -1;
        setCompletion({ ...completion, index: (completion.index + step + options.length) % options.length });
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        choose(options[Math.min(completion.index, options.length - 1)]);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setCompletion(null);
        return;
      }
    }
    if (canned.onKeyDown(e)) return e.preventDefault();
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  };

  const switchTo = (next: Mode) => {
    setMode(next);
    setLaterOpen(false);
    setCompletion(null);
    // A draft that becomes a note is no longer typed for the customer (and the reverse).
    if (text.trim()) typing.input(text, next === 'note');
    input.current?.focus();
  };

  const myId = me.value?.user.id;
  return (
    <form class={`composer${mode === 'note' ? ' note-mode' : ''}`} onSubmit={(e) => (e.preventDefault(), send())}>
      <Notice>{error}</Notice>
      <div class="composer-modes" role="tablist" aria-label="Reply or private note">
        {canReply && (
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'reply'}
            class={`mode-tab${mode === 'reply' ? ' active' : ''}`}
            onClick={() => switchTo('reply')}
          >
            Reply
          </button>
        )}
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'note'}
          class={`mode-tab note${mode === 'note' ? ' active' : ''}`}
          onClick={() => switchTo('note')}
        >
          Private note
        </button>
        {mode === 'note' && <span class="muted small mode-hint">Only your team sees notes</span>}
      </div>
      {files.length > 0 && (
        <ul class="composer-files" aria-label="Attachments">
          {files.map((f, i) => (
            <li class="chip">
              <PaperclipIcon /> {f.filename}
              <button type="button" class="chip-x" aria-label={`Remove ${f.filename}`} onClick={() => setFiles(files.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {mode === 'reply' && <CollisionWarning conversationId={conversationId} />}
      {mode === 'reply' && email && <EmailRecipients recipients={recipients} />}
      <CannedPicker picker={canned} id={`canned-${conversationId}`} />
      <div class="composer-field">
        {options.length > 0 && completion && (
          <ul class="mention-suggest" role="listbox" aria-label="Mention a teammate" id="mention-suggest">
            {options.map((m, i) => (
              <li
                role="option"
                id={`mention-option-${m.id}`}
                aria-selected={i === completion.index}
                class={i === completion.index ? 'active' : ''}
                onMouseDown={(e) => (e.preventDefault(), choose(m))}
              >
                <strong>{m.name}</strong>
                {m.user_id === myId ? <span class="muted small"> (you)</span> : null}
                <span class="muted small"> {m.email}</span>
              </li>
            ))}
          </ul>
        )}
        <textarea
          ref={input}
          class="composer-input"
          dir="auto"
          aria-label={mode === 'note' ? 'Private note' : 'Reply'}
          aria-autocomplete="list"
          aria-controls={options.length ? 'mention-suggest' : canned.open ? `canned-${conversationId}` : undefined}
          aria-activedescendant={
            options.length && completion
              ? `mention-option-${options[Math.min(completion.index, options.length - 1)].id}`
              : canned.open
                ? `canned-${conversationId}-${canned.active}`
                : undefined
          }
          placeholder={
            mode === 'note'
              ? 'Write a note for your team… Type @ to mention someone.'
              : (closedReason ?? `Reply via ${channelLabel}… (Enter to send, Shift+Enter for a new line, / for canned responses)`)
          }
          disabled={mode === 'reply' && Boolean(closedReason)}
          rows={3}
          value={text}
          onInput={onInput}
          onKeyDown={onKeyDown}
          onBlur={() => setCompletion(null)}
        />
      </div>
      <div class="composer-bar">
        <input ref={picker} type="file" multiple hidden onChange={(e) => void upload(e.currentTarget.files)} aria-label="Attach files" />
        <button type="button" class="btn ghost" onClick={() => picker.current?.click()} disabled={busy === 'uploading'}>
          <PaperclipIcon /> {busy === 'uploading' ? 'Uploading…' : 'Attach'}
        </button>
        <div class="composer-send">
          {mode === 'reply' && (
            <button
              type="button"
              class="btn ghost"
              aria-expanded={laterOpen}
              disabled={Boolean(busy) || Boolean(closedReason) || (!text.trim() && !files.length)}
              onClick={() => setLaterOpen(!laterOpen)}
            >
              Send later
            </button>
          )}
          {sending > 0 && (
            <span class="muted small" role="status">
              Sending…
            </span>
          )}
          <button
            type="submit"
            class={`btn ${mode === 'note' ? 'note-btn' : 'primary'}`}
            disabled={Boolean(busy) || (mode === 'reply' && Boolean(closedReason)) || (!text.trim() && !files.length)}
          >
            {mode === 'note' ? 'Add note' : 'Send'}
          </button>
        </div>
      </div>
      {laterOpen && mode === 'reply' && <SendLaterPanel busy={Boolean(busy)} onSchedule={(at) => send(at)} onClose={() => setLaterOpen(false)} />}
    </form>
  );
}
