/** Connect a platform channel with a form of its fields (never raw JSON), as its connector describes them. */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { channelTypes } from '../channel-types.ts';
import type { Channel, ChannelType } from '../types.ts';
import { ChannelIcon } from '../ui/channels.tsx';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';

export function ConnectChannel({ onConnected }: { onConnected: (channel: Channel) => void }) {
  const [type, setType] = useState<ChannelType | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const platforms = channelTypes.value.filter((t) => !t.internal);
  const form = platforms.find((t) => t.type === type);
  const act = useAction(async () => {
    if (!form) return;
    const config = Object.fromEntries(form.fields.filter((f) => values[f.key]?.trim()).map((f) => [f.key, values[f.key]!.trim()]));
    const channel = await api.post<Channel>('/api/v1/channels', { type: form.type, config });
    setType(null);
    setValues({});
    onConnected(channel);
  });
  if (!form)
    return (
      <div class="connect-grid" role="group" aria-label="Connect a channel">
        {platforms.map((t) => (
          <button class="connect-tile" onClick={() => setType(t.type)}>
            <ChannelIcon type={t.type} size={24} />
            <span>{t.label}</span>
          </button>
        ))}
      </div>
    );
  return (
    <form class="card stack" onSubmit={act.onSubmit} aria-label={`Connect ${form.label}`}>
      <div class="card-row">
        <ChannelIcon type={form.type} size={24} />
        <h3 class="card-title grow">Connect {form.label}</h3>
      </div>
      <p class="small muted">{form.intro}</p>
      <div class="form-grid">
        {form.fields.map((f) =>
          f.input === 'textarea' ? (
            <label class="field span-all">
              <span class="field-label">{f.required ? f.label : `${f.label} (optional)`}</span>
              <textarea
                class="input"
                rows={3}
                placeholder={f.placeholder ?? undefined}
                value={values[f.key] ?? ''}
                onInput={(e) => setValues({ ...values, [f.key]: e.currentTarget.value })}
              />
            </label>
          ) : (
            <Field
              label={f.required ? f.label : `${f.label} (optional)`}
              type={f.secret ? 'password' : f.input === 'number' ? 'number' : 'text'}
              autoComplete="off"
              required={f.required}
              placeholder={f.placeholder ?? undefined}
              value={values[f.key] ?? ''}
              onInput={(e) => setValues({ ...values, [f.key]: e.currentTarget.value })}
            />
          ),
        )}
      </div>
      <Notice>{act.error}</Notice>
      <div class="row-end">
        <button type="button" class="btn ghost" onClick={() => setType(null)}>
          Cancel
        </button>
        <button type="submit" class="btn primary" disabled={act.busy}>
          {act.busy ? 'Connecting…' : 'Connect'}
        </button>
      </div>
    </form>
  );
}
