/** Webhooks: the owner and admins add endpoints (the signing secret shown once), pick events, send a test, see recent deliveries, delete. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Webhook, WebhookDelivery } from '../types.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { shortTime } from '../ui/time.ts';
import { useAction } from '../ui/useAction.ts';
import { CopyBox, Section } from './Section.tsx';

const EVENTS = [
  'conversation.created',
  'conversation.updated',
  'conversation.assigned',
  'message.created',
  'message.updated',
  'handoff.requested',
  'customer.updated',
  'customer.merged',
  'customer.erased',
];

function Deliveries({ webhook }: { webhook: Webhook }) {
  const [items, setItems] = useState<WebhookDelivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => api.get<WebhookDelivery[]>(`/api/v1/webhooks/${webhook.id}/deliveries?limit=10`).then(setItems, (e: Error) => setError(e.message));
  useEffect(() => void load(), [webhook.id]);
  const test = useAction(async () => {
    await api.post(`/api/v1/webhooks/${webhook.id}/test`);
    await load();
  });
  // The same event (same id and body) sent again as a new delivery, listed first.
  const redeliver = useAction(async (d: WebhookDelivery) => {
    await api.post(`/api/v1/webhooks/${webhook.id}/deliveries/${d.id}/redeliver`);
    await load();
  });
  return (
    <div class="stack-tight">
      <div class="row-between">
        <strong class="small">Recent deliveries</strong>
        <span>
          <button class="btn small" onClick={() => void load()} aria-label={`Refresh deliveries of ${webhook.url}`}>
            Refresh
          </button>{' '}
          <button class="btn small" disabled={test.busy} onClick={() => void test.run()} aria-label={`Send test event to ${webhook.url}`}>
            Send test event
          </button>
        </span>
      </div>
      <Notice>{error ?? test.error ?? redeliver.error}</Notice>
      {items?.length === 0 && <p class="small muted">Nothing sent yet.</p>}
      <ul class="delivery-list" aria-label={`Deliveries to ${webhook.url}`}>
        {(items ?? []).map((d) => (
          <li class={`delivery delivery-${d.status}`}>
            <span class="delivery-status">{d.status}</span>
            <code class="small">{d.event_type}</code>
            <span class="small muted delivery-detail">
              {shortTime(d.created_at)} · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
              {d.response_status !== null ? ` · HTTP ${d.response_status}` : ''}
              {d.response_ms !== null ? ` · ${d.response_ms} ms` : ''}
              {d.redelivery_of ? ' · redelivery' : ''}
              {d.last_error && d.status !== 'delivered' ? ` · ${d.last_error}` : ''}
            </span>
            <button
              class="btn ghost xsmall delivery-redeliver"
              type="button"
              disabled={redeliver.busy}
              onClick={() => void redeliver.run(d)}
              aria-label={`Redeliver ${d.event_type} of ${shortTime(d.created_at)}`}
              title="Send this event again (same id and body)"
            >
              Redeliver
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Webhooks() {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['conversation.created', 'message.created']);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const load = () => api.get<Webhook[]>('/api/v1/webhooks?limit=100').then(setHooks, (e: Error) => setError(e.message));
  useEffect(() => void load(), []);
  const create = useAction(
    async () => {
      const made = await api.post<Webhook & { secret: string }>('/api/v1/webhooks', { url, events });
      setSecret({ url: made.url, secret: made.secret });
      setUrl('');
      await load();
    },
    { fields: ['url'] },
  );
  const change = useAction(async (w: Webhook, patch: Partial<Webhook>) => {
    await api.patch(`/api/v1/webhooks/${w.id}`, patch);
    await load();
  });
  const remove = useAction(async (w: Webhook) => {
    await api.delete(`/api/v1/webhooks/${w.id}`);
    await load();
  });
  const toggle = (e: string) => setEvents(events.includes(e) ? events.filter((x) => x !== e) : [...events, e]);
  return (
    <Section
      title="Webhooks"
      intro="Parley posts the events you choose to your URL, signed with the endpoint's secret (Parley-Signature header), and retries for about three days when your server does not answer."
      error={error}
      loading={hooks === null}
    >
      {secret && (
        <div class="card stack" role="status" aria-label="New webhook secret">
          <strong>Copy the signing secret for {secret.url} now: it is shown only once.</strong>
          <CopyBox label="Signing secret" value={secret.secret} />
          <div class="row-end">
            <button class="btn small" onClick={() => setSecret(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <ul class="cards" aria-label="Webhook endpoints">
        {(hooks ?? []).map((w) => (
          <li class="card stack" aria-label={w.url}>
            <div class="card-row">
              <div class="grow stack-tight">
                <strong class="break">{w.url}</strong>
                <div class="small muted">{w.events.join(', ')}</div>
                <div class="small">
                  {w.active ? 'Active' : 'Disabled'}
                  {w.disabled_reason ? `: ${w.disabled_reason}` : ''}
                  {w.last_success_at ? ` · last delivered ${shortTime(w.last_success_at)}` : ''}
                </div>
              </div>
              <div class="card-actions">
                <button
                  class="btn small"
                  disabled={change.busy}
                  onClick={() => void change.run(w, { active: !w.active })}
                  aria-label={`${w.active ? 'Disable' : 'Enable'} ${w.url}`}
                >
                  {w.active ? 'Disable' : 'Enable'}
                </button>
                <button
                  class="btn small danger"
                  disabled={remove.busy}
                  onClick={() => confirm(`Delete the webhook ${w.url}?`) && remove.run(w)}
                  aria-label={`Delete ${w.url}`}
                >
                  Delete
                </button>
              </div>
            </div>
            <Deliveries webhook={w} />
          </li>
        ))}
      </ul>
      {hooks?.length === 0 && <p class="muted">No webhook endpoints yet.</p>}
      <Notice>{change.error ?? remove.error}</Notice>
      <h3 class="subhead">Add an endpoint</h3>
      <form class="card stack" onSubmit={create.onSubmit} aria-label="New webhook">
        <Field
          label="URL"
          error={create.fieldErrors.url}
          type="url"
          required
          maxLength={2000}
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          placeholder="https://example.com/parley-webhook"
        />
        <fieldset class="stack-tight">
          <legend class="field-label">Events</legend>
          {EVENTS.map((e) => (
            <label class="check">
              <input type="checkbox" checked={events.includes(e)} onChange={() => toggle(e)} /> <code>{e}</code>
            </label>
          ))}
        </fieldset>
        <Notice>{create.error}</Notice>
        <div class="row-end">
          <button class="btn primary" type="submit" disabled={create.busy || !url.trim() || events.length === 0}>
            Add endpoint
          </button>
        </div>
      </form>
    </Section>
  );
}
