/**
 * WhatsApp's 24-hour window on a conversation: how long free-form replies are still allowed, and
 * the template picker (approved templates of the channel, their parameters, a preview) for when
 * the window has closed — or to start over with a template inside it.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, getPage } from '../api.ts';
import type { ConversationDetail, Message, WhatsAppTemplate } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { currentTime } from '../ui/clock.ts';
import { thread } from './thread-store.ts';

/** Milliseconds left in the window (negative: closed), kept current every 30 s (app/ui/clock.ts). */
export function useWindowLeft(expiresAt: string | null): number | null {
  return expiresAt ? new Date(expiresAt).getTime() - currentTime() : null;
}

const leftText = (ms: number) => {
  const minutes = Math.max(1, Math.floor(ms / 60_000));
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
};

export function ReplyWindowBar({ conversation, left, onTemplate }: { conversation: ConversationDetail; left: number | null; onTemplate: () => void }) {
  const open = left !== null && left > 0;
  return (
    <div class={`reply-window ${open ? (left! < 3 * 3600_000 ? 'closing' : 'open') : 'closed'}`} role="status" data-window={open ? 'open' : 'closed'}>
      <span>
        {open ? (
          <>
            WhatsApp reply window: <strong>{leftText(left!)}</strong> left
          </>
        ) : conversation.reply_window_expires_at ? (
          <>
            The 24-hour reply window <strong>closed</strong>: WhatsApp only accepts a template now.
          </>
        ) : (
          <>The customer has not written yet: WhatsApp only accepts a template.</>
        )}
      </span>
      <button type="button" class="btn small" onClick={onTemplate}>
        Send a template
      </button>
    </div>
  );
}

/** A template's body with its {{n}} filled in (an empty value keeps the placeholder). */
export const renderTemplate = (body: string, values: string[]) => body.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => values[Number(n) - 1] || whole);

export function TemplatePicker({ conversation, onClose }: { conversation: ConversationDetail; onClose: () => void }) {
  const [templates, setTemplates] = useState<WhatsAppTemplate[] | null>(null);
  const [chosen, setChosen] = useState<WhatsAppTemplate | null>(null);
  const [values, setValues] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function load(refresh: boolean) {
    setError(null);
    try {
      const page = await getPage<WhatsAppTemplate>(`/api/v1/channels/${conversation.channel_id}/templates?limit=200${refresh ? '&refresh=true' : ''}`);
      setTemplates(page.items);
    } catch (e) {
      setError((e as Error).message);
      setTemplates([]);
    }
  }
  useEffect(() => void load(false), [conversation.channel_id]);

  const pick = (key: string) => {
    const template = templates?.find((t) => `${t.name}/${t.language}` === key) ?? null;
    setChosen(template);
    setValues(Array.from({ length: template?.parameter_count ?? 0 }, () => ''));
  };

  async function send() {
    if (!chosen || busy) return;
    setBusy(true);
    setError(null);
    try {
      const sent = await api.post<Message>(`/api/v1/conversations/${conversation.id}/messages`, {
        template: { name: chosen.name, language: chosen.language, parameters: values.map((v) => v.trim()) },
      });
      const open = thread.value;
      if (open?.id === conversation.id && !open.messages.some((m) => m.id === sent.id)) thread.value = { ...open, messages: [...open.messages, sent] };
      onClose();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const complete = chosen !== null && values.every((v) => v.trim() !== '');
  return (
    <form class="template-picker" aria-label="Send a WhatsApp template" onSubmit={(e) => (e.preventDefault(), void send())}>
      <div class="template-head">
        <strong>WhatsApp template</strong>
        <span class="spacer" />
        <button type="button" class="btn ghost small" onClick={() => void load(true)}>
          Refresh
        </button>
        <button type="button" class="btn ghost small" onClick={onClose} aria-label="Close templates">
          ×
        </button>
      </div>
      <Notice>{error}</Notice>
      {templates === null ? (
        <div class="spinner small" role="status" aria-label="Loading templates" />
      ) : templates.length === 0 ? (
        <p class="muted small">No approved templates. Create them in WhatsApp Manager, then Refresh.</p>
      ) : (
        <>
          <label class="field">
            <span>Template</span>
            <select aria-label="Template" value={chosen ? `${chosen.name}/${chosen.language}` : ''} onChange={(e) => pick(e.currentTarget.value)}>
              <option value="">Choose…</option>
              {templates.map((t) => (
                <option value={`${t.name}/${t.language}`}>
                  {t.name} ({t.language})
                </option>
              ))}
            </select>
          </label>
          {chosen &&
            values.map((value, i) => (
              <label class="field">
                <span>{`{{${i + 1}}}`}</span>
                <input
                  value={value}
                  aria-label={`Parameter ${i + 1}`}
                  onInput={(e) => setValues(values.map((v, j) => (j === i ? e.currentTarget.value : v)))}
                />
              </label>
            ))}
          {chosen && (
            <p class="template-preview" aria-label="Preview">
              {renderTemplate(chosen.body, values)}
            </p>
          )}
          <div class="composer-bar">
            <button type="submit" class="btn primary" disabled={!complete || busy}>
              {busy ? 'Sending…' : 'Send template'}
            </button>
          </div>
        </>
      )}
    </form>
  );
}
