/** One connected channel: its state, the setup its platform still needs, and what can be done with it. */
import { api } from '../api.ts';
import { isManager } from '../session.ts';
import type { Channel } from '../types.ts';
import { CHANNEL_LABELS, ChannelIcon } from '../ui/channels.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { CopyBox } from './Section.tsx';

const STATUS_TEXT = { pending: 'Connecting…', connected: 'Connected', error: 'Needs attention' } as const;

function title(c: Channel): string {
  const config = c.config;
  const detail = (config.address ?? config.from_number ?? config.phone_number_id ?? config.instagram_business_account_id ?? config.name) as string | undefined;
  if (c.is_builtin) return 'Web chat (built in)';
  return detail ? `${CHANNEL_LABELS[c.type]} · ${detail}` : CHANNEL_LABELS[c.type];
}

function SetupSteps({ channel: c }: { channel: Channel }) {
  if ((c.type === 'whatsapp' || c.type === 'instagram') && c.webhook_url)
    return (
      <div class="setup">
        <p class="small">In your Meta app's webhook settings, subscribe to <strong>messages</strong> with:</p>
        <CopyBox label="Callback URL" value={c.webhook_url} />
        {typeof c.config.verify_token === 'string' && <CopyBox label="Verify token" value={c.config.verify_token} />}
      </div>
    );
  if (c.type === 'sms' && c.webhook_url)
    return (
      <div class="setup">
        <p class="small">Parley sets this as your Twilio number's "A message comes in" URL (set it by hand if registration fails):</p>
        <CopyBox label="Messaging URL" value={c.webhook_url} />
      </div>
    );
  if (c.type === 'email' && c.inbound_webhook)
    return (
      <div class="setup">
        <p class="small">To forward mail instead of IMAP, have your provider post raw messages to this URL with the secret in <code>X-Parley-Webhook-Secret</code>:</p>
        <CopyBox label="Forwarding URL" value={c.inbound_webhook.url} />
        <CopyBox label="Secret" value={c.inbound_webhook.secret} />
      </div>
    );
  return null;
}

export function ChannelCard({ channel: c, onChange }: { channel: Channel; onChange: () => void }) {
  const act = useAction(async (call: () => Promise<unknown>) => {
    await call();
    onChange();
  });
  const platform = c.type !== 'webchat' && c.type !== 'widget';
  return (
    <li class="card channel-card" aria-label={title(c)}>
      <div class="card-row">
        <ChannelIcon type={c.type} size={22} />
        <div class="grow">
          <div class="card-title">{title(c)}</div>
          <div class="small muted">
            <span class={`status-dot ${c.is_active ? c.status : 'inactive'}`} /> {c.is_active ? STATUS_TEXT[c.status] : 'Inactive'}
          </div>
        </div>
        {isManager.value && !c.is_builtin && (
          <div class="card-actions">
            {platform && c.is_active && c.status === 'error' && (
              <button class="btn small" disabled={act.busy} onClick={() => act.run(() => api.post(`/api/v1/channels/${c.id}/reconnect`))}>Reconnect</button>
            )}
            <button class="btn small ghost" disabled={act.busy} onClick={() => act.run(() => api.patch(`/api/v1/channels/${c.id}`, { is_active: !c.is_active }))}>
              {c.is_active ? 'Pause' : 'Activate'}
            </button>
            <button
              class="btn small danger"
              disabled={act.busy}
              onClick={() => confirm(`Delete this ${CHANNEL_LABELS[c.type]} channel? Its conversations stay.`) && act.run(() => api.delete(`/api/v1/channels/${c.id}`))}
            >
              Delete
            </button>
          </div>
        )}
      </div>
      {c.status === 'error' && c.last_error && <Notice>{c.last_error}</Notice>}
      {isManager.value && <SetupSteps channel={c} />}
      <Notice>{act.error}</Notice>
    </li>
  );
}
