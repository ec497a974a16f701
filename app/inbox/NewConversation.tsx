/**
 * "New conversation": the business writes first on WhatsApp, with an approved template (WhatsApp
 * accepts nothing else before the customer has written). A phone number, a template of the
 * channel and its parameters go to POST /api/v1/conversations, which finds or creates the
 * customer and the conversation; the app then opens it. Shown only to members who may start
 * conversations and reply (the server's policy table), in a business with a WhatsApp channel.
 */
import { signal } from '@preact/signals';
import { useEffect, useId, useLayoutEffect, useState } from 'preact/hooks';
import { FieldHint } from '../ui/FieldHint.tsx';
import { api, getPage } from '../api.ts';
import { navigate } from '../router.ts';
import { can, me } from '../session.ts';
import type { Channel, ConversationDetail, WhatsAppTemplate } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { Modal } from '../ui/Modal.tsx';
import { renderTemplate } from './ReplyWindow.tsx';
import { inboxUrl } from './filters.ts';

/** The business's active WhatsApp channels; null until read. */
const whatsappChannels = signal<Channel[] | null>(null);
export const newConversationOpen = signal(false);

async function loadWhatsAppChannels(): Promise<void> {
  const channels = await api.get<Channel[]>('/api/v1/channels');
  whatsappChannels.value = channels.filter((c) => c.type === 'whatsapp' && c.is_active);
}

const channelName = (c: Channel) => `WhatsApp ${typeof c.config.phone_number_id === 'string' ? c.config.phone_number_id : ''}`.trim();

/** The list header's button; nothing without a WhatsApp channel or the right to start and reply. */
export function NewConversationButton() {
  const allowed = can('conversations.create') && can('conversations.reply') && can('channels.read');
  useEffect(() => {
    if (allowed) void loadWhatsAppChannels().catch(() => {});
  }, [allowed]);
  if (!allowed || !whatsappChannels.value?.length) return null;
  return (
    <button type="button" class="btn xsmall primary" onClick={() => (newConversationOpen.value = true)}>
      New conversation
    </button>
  );
}

export function NewConversationDialog() {
  const phoneHint = useId();
  const channels = whatsappChannels.value ?? [];
  const [channelId, setChannelId] = useState('');
  const [phone, setPhone] = useState('');
  const [templates, setTemplates] = useState<WhatsAppTemplate[] | null>(null);
  const [chosen, setChosen] = useState<WhatsAppTemplate | null>(null);
  const [values, setValues] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const open = newConversationOpen.value;
  const close = () => (newConversationOpen.value = false);

  useLayoutEffect(() => {
    if (!open) return;
    setChannelId((current) => current || channels[0]?.id || '');
    setError(null);
  }, [open]);

  async function load(refresh: boolean) {
    if (!channelId) return;
    setError(null);
    setTemplates(null);
    try {
      const page = await getPage<WhatsAppTemplate>(`/api/v1/channels/${channelId}/templates?limit=200${refresh ? '&refresh=true' : ''}`);
      setTemplates(page.items);
    } catch (e) {
      setError((e as Error).message);
      setTemplates([]);
    }
  }
  useEffect(() => {
    setChosen(null);
    setValues([]);
    if (open) void load(false);
  }, [open, channelId]);

  if (!open) return null;

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
      const conversation = await api.post<ConversationDetail>('/api/v1/conversations', {
        business_id: me.value?.business?.id,
        channel_id: channelId,
        phone: phone.trim(),
        template: { name: chosen.name, language: chosen.language, parameters: values.map((v) => v.trim()) },
      });
      close();
      setPhone('');
      setChosen(null);
      navigate(inboxUrl({}, conversation.id));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const complete = phone.trim() !== '' && chosen !== null && values.every((v) => v.trim() !== '');
  return (
    <Modal class="search-backdrop" label="New WhatsApp conversation" onClose={close}>
      <div class="new-conversation">
        <form class="new-conversation-form" onSubmit={(e) => (e.preventDefault(), void send())}>
          <div class="shortcuts-head">
            <h2>New WhatsApp conversation</h2>
            <button type="button" class="btn small ghost" onClick={close}>
              Cancel
            </button>
          </div>
          <p class="muted small">WhatsApp lets a business write first only with an approved template. The customer's answer comes back here.</p>
          <Notice>{error}</Notice>
          {channels.length > 1 && (
            <label class="field">
              <span class="field-label">Channel</span>
              <select class="input" aria-label="Channel" value={channelId} onChange={(e) => setChannelId(e.currentTarget.value)}>
                {channels.map((c) => (
                  <option value={c.id}>{channelName(c)}</option>
                ))}
              </select>
            </label>
          )}
          <label class="field">
            <span class="field-label">Phone number</span>
            <input
              class="input"
              type="tel"
              aria-describedby={phoneHint}
              autoFocus
              inputMode="tel"
              autocomplete="tel"
              placeholder="+49 151 23456789"
              value={phone}
              onInput={(e) => setPhone(e.currentTarget.value)}
            />
            <FieldHint id={phoneHint}>With the country code (E.164).</FieldHint>
          </label>
          {templates === null ? (
            <div class="spinner small" role="status" aria-label="Loading templates" />
          ) : templates.length === 0 ? (
            <p class="muted small">
              No approved templates. Create them in WhatsApp Manager, then{' '}
              <button type="button" class="link-button" onClick={() => void load(true)}>
                refresh
              </button>
              .
            </p>
          ) : (
            <>
              <label class="field">
                <span class="field-label">Template</span>
                <select
                  class="input"
                  aria-label="Template"
                  value={chosen ? `${chosen.name}/${chosen.language}` : ''}
                  onChange={(e) => pick(e.currentTarget.value)}
                >
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
                    <span class="field-label">{`{{${i + 1}}}`}</span>
                    <input
                      class="input"
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
            </>
          )}
          <div class="new-conversation-actions">
            <button type="button" class="btn ghost small" onClick={() => void load(true)} disabled={!channelId}>
              Refresh templates
            </button>
            <button type="submit" class="btn primary" disabled={!complete || busy}>
              {busy ? 'Sending…' : 'Send template'}
            </button>
          </div>
        </form>
      </div>
    </Modal>
  );
}
