/** One connected channel: its state, the setup its platform still needs, and what can be done with it. */
import { useEffect, useId, useState } from 'preact/hooks';
import { FieldHint } from '../ui/FieldHint.tsx';
import { api } from '../api.ts';
import { can } from '../session.ts';
import type { Channel } from '../types.ts';
import { channelLabel, channelTypeInfo, channelValue } from '../channel-types.ts';
import { ChannelIcon } from '../ui/channels.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { CopyBox } from './Section.tsx';
import { teams } from '../inbox/teams.ts';

const STATUS_TEXT = { pending: 'Connecting…', connected: 'Connected', error: 'Needs attention' } as const;

function title(c: Channel): string {
  if (c.is_builtin) return 'Web chat (built in)';
  const field = channelTypeInfo(c.type)?.title_field;
  const detail = field ? c.config[field] : undefined;
  return typeof detail === 'string' && detail ? `${channelLabel(c.type)} · ${detail}` : channelLabel(c.type);
}

/** What the owner still sets in the platform, as the channel type's connector words it. */
function SetupSteps({ channel: c }: { channel: Channel }) {
  const setup = channelTypeInfo(c.type)?.after_connect;
  const values = (setup?.values ?? []).map((v) => ({ label: v.label, value: channelValue(c, v.source) }));
  // Shown once the first value exists (the platform's URL is known after saving).
  if (!setup || !values[0]?.value) return null;
  return (
    <div class="setup">
      <p class="small">{setup.text}</p>
      {values.map((v) => v.value && <CopyBox label={v.label} value={v.value} />)}
    </div>
  );
}

/** The e-mail channel's signature, appended to every reply after the agent's own (config `signature`). */
function ChannelSignature({ channel: c, onChange }: { channel: Channel; onChange: () => void }) {
  const signatureHint = useId();
  const current = typeof c.config.signature === 'string' ? c.config.signature : '';
  const [value, setValue] = useState(current);
  const [open, setOpen] = useState(false);
  const act = useAction(async () => {
    await api.patch(`/api/v1/channels/${c.id}`, { config: { signature: value.trim() } });
    setOpen(false);
    onChange();
  });
  if (!open)
    return (
      <div class="small channel-signature">
        <span class="muted">Signature:</span> {current ? current.split('\n')[0] : <span class="muted">none</span>}{' '}
        <button type="button" class="link-btn small" onClick={() => (setValue(current), setOpen(true))}>
          Edit
        </button>
      </div>
    );
  return (
    <form class="stack channel-signature" onSubmit={act.onSubmit} aria-label="Channel signature">
      <label class="field">
        <span class="field-label">Channel signature</span>
        <textarea class="input" aria-describedby={signatureHint} rows={3} maxLength={4000} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        <FieldHint id={signatureHint}>Added to every reply from this address, after the agent's own signature.</FieldHint>
      </label>
      <Notice>{act.error}</Notice>
      <div class="row-end">
        <button type="button" class="btn small ghost" onClick={() => setOpen(false)}>
          Cancel
        </button>
        <button type="submit" class="btn small primary" disabled={act.busy}>
          {act.busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

/**
 * While the platform's 429 holds the channel (`send_held_until`): until when replies wait. Gone
 * at that time by this device's clock; no event marks the end of a hold.
 */
function HoldNotice({ channel: c }: { channel: Channel }) {
  const until = c.send_held_until ? new Date(c.send_held_until).getTime() : 0;
  const left = until - Date.now();
  // Drawn again when the hold ends (a later hold comes with the channel read again).
  const [, redraw] = useState(0);
  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => redraw((n) => n + 1), left);
    return () => clearTimeout(timer);
  }, [until]);
  if (left <= 0) return null;
  return (
    <Notice kind="info">
      {channelLabel(c.type)} asked Parley to slow down: replies on this channel wait until{' '}
      {new Date(until).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })}, then go out in order.
    </Notice>
  );
}

/**
 * The channel's default team (`default_team_id`): every conversation opened on it from then on
 * starts in that team. The owner and admins pick it; others read it. Hidden while the business
 * has no teams and the channel names none.
 */
function ChannelTeam({ channel: c, onChange }: { channel: Channel; onChange: () => void }) {
  // The choice shows at once and stays while the channels are read again (back to the stored one if refused).
  const stored = c.default_team_id ?? '';
  const [shown, setShown] = useState(stored);
  useEffect(() => setShown(stored), [stored]);
  const act = useAction(async (teamId: string) => {
    setShown(teamId);
    try {
      await api.patch(`/api/v1/channels/${c.id}`, { default_team_id: teamId || null });
    } catch (error) {
      setShown(stored);
      throw error;
    }
    onChange();
  });
  if (teams.value.length === 0 && !c.default_team_id) return null;
  const current = teams.value.find((t) => t.id === c.default_team_id);
  if (!can('channels.manage'))
    return (
      <div class="small channel-team">
        <span class="muted">New conversations go to:</span> {current ? current.name : <span class="muted">no team</span>}
      </div>
    );
  return (
    <div class="channel-team">
      <label class="channel-team-field">
        <span class="small muted">New conversations go to</span>
        <select
          class="input small"
          aria-label={`Default team of ${title(c)}`}
          value={shown}
          disabled={act.busy}
          onChange={(e) => void act.run(e.currentTarget.value)}
        >
          <option value="">No team</option>
          {c.default_team_id && !current && <option value={c.default_team_id}>Unknown team</option>}
          {teams.value.map((t) => (
            <option value={t.id}>{t.name}</option>
          ))}
        </select>
      </label>
      <Notice>{act.error}</Notice>
    </div>
  );
}

export function ChannelCard({ channel: c, onChange }: { channel: Channel; onChange: () => void }) {
  const act = useAction(async (call: () => Promise<unknown>) => {
    await call();
    onChange();
  });
  const platform = channelTypeInfo(c.type)?.internal === false;
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
        {can('channels.manage') && !c.is_builtin && (
          <div class="card-actions">
            {platform && c.is_active && c.status === 'error' && (
              <button class="btn small" disabled={act.busy} onClick={() => act.run(() => api.post(`/api/v1/channels/${c.id}/reconnect`))}>
                Reconnect
              </button>
            )}
            <button
              class="btn small ghost"
              disabled={act.busy}
              onClick={() => act.run(() => api.patch(`/api/v1/channels/${c.id}`, { is_active: !c.is_active }))}
            >
              {c.is_active ? 'Pause' : 'Activate'}
            </button>
            <button
              class="btn small danger"
              disabled={act.busy}
              onClick={() =>
                confirm(`Delete this ${channelLabel(c.type)} channel? Its conversations stay.`) && act.run(() => api.delete(`/api/v1/channels/${c.id}`))
              }
            >
              Delete
            </button>
          </div>
        )}
      </div>
      {c.status === 'error' && c.last_error && <Notice>{c.last_error}</Notice>}
      <HoldNotice channel={c} />
      {can('channels.manage') && <SetupSteps channel={c} />}
      <ChannelTeam channel={c} onChange={onChange} />
      {can('channels.manage') && c.type === 'email' && <ChannelSignature channel={c} onChange={onChange} />}
      <Notice>{act.error}</Notice>
    </li>
  );
}
