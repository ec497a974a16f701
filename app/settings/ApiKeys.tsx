/** API keys: the owner and admins make one (its key shown once, to copy), see when each was last used, and revoke them. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { ApiKey, ApiKeyScope } from '../types.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { shortTime } from '../ui/time.ts';
import { useAction } from '../ui/useAction.ts';
import { CopyBox, Section } from './Section.tsx';
import { ownerProof, ProofField } from './TwoFactor.tsx';

const SCOPES: { id: ApiKeyScope; label: string }[] = [
  { id: 'read', label: 'Read: conversations, customers, settings' },
  { id: 'write', label: 'Write: reply, assign, label (what any teammate may do)' },
  { id: 'admin', label: 'Admin: channels, webhooks, settings (what owners and admins manage)' },
];

export function ApiKeys() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['read']);
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const [proof, setProof] = useState('');
  const load = () => api.get<ApiKey[]>('/api/v1/api-keys?limit=100').then(setKeys, (e: Error) => setError(e.message));
  useEffect(() => void load(), []);
  const create = useAction(
    async () => {
      // A key outlives every session: the password (or a second factor) says it is really you.
      const made = await api.post<ApiKey & { key: string }>('/api/v1/api-keys', { name, scopes, ...ownerProof(proof) });
      setShown({ name: made.name, key: made.key });
      setName('');
      setProof('');
      await load();
    },
    { fields: ['name', 'password'] },
  );
  const revoke = useAction(async (k: ApiKey) => {
    await api.delete(`/api/v1/api-keys/${k.id}`);
    await load();
  });
  const toggle = (scope: ApiKeyScope) => setScopes(scopes.includes(scope) ? scopes.filter((s) => s !== scope) : [...scopes, scope]);
  return (
    <Section
      title="API keys"
      intro="Let another system read and act on Parley: send the key as Authorization: Bearer prl_…. A key acts as you, limited to its scopes, and stops working if you leave the team."
      error={error}
      loading={keys === null}
    >
      {shown && (
        <div class="card stack" role="status" aria-label="New API key">
          <strong>Copy the key for “{shown.name}” now: it is shown only once.</strong>
          <CopyBox label="API key" value={shown.key} />
          <div class="row-end">
            <button class="btn small" onClick={() => setShown(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <ul class="cards" aria-label="API keys">
        {(keys ?? []).map((k) => (
          <li class="card card-row" aria-label={k.name}>
            <div class="grow stack-tight">
              <strong class="break">{k.name}</strong>
              <code class="small">{k.prefix}</code>
              <div class="small muted">
                {k.scopes.join(', ')} · made {shortTime(k.created_at)}
                {k.created_by_name ? ` by ${k.created_by_name}` : ''} · {k.last_used_at ? `last used ${shortTime(k.last_used_at)}` : 'never used'}
              </div>
            </div>
            <div class="card-actions">
              <button
                class="btn small danger"
                disabled={revoke.busy}
                onClick={() => confirm(`Revoke the key "${k.name}"? Systems using it stop at once.`) && revoke.run(k)}
                aria-label={`Revoke ${k.name}`}
              >
                Revoke
              </button>
            </div>
          </li>
        ))}
      </ul>
      {keys?.length === 0 && <p class="muted">No API keys yet.</p>}
      <Notice>{revoke.error}</Notice>
      <h3 class="subhead">Create a key</h3>
      <form class="card stack" onSubmit={create.onSubmit} aria-label="New API key form">
        <Field
          label="Name"
          error={create.fieldErrors.name}
          required
          maxLength={100}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          placeholder="CRM sync"
        />
        <fieldset class="stack-tight">
          <legend class="field-label">Scopes</legend>
          {SCOPES.map((s) => (
            <label class="check">
              <input type="checkbox" checked={scopes.includes(s.id)} onChange={() => toggle(s.id)} /> {s.label}
            </label>
          ))}
        </fieldset>
        <ProofField value={proof} onInput={setProof} error={create.fieldErrors.password} />
        <Notice>{create.error}</Notice>
        <div class="row-end">
          <button class="btn primary" type="submit" disabled={create.busy || !name.trim() || scopes.length === 0}>
            Create key
          </button>
        </div>
      </form>
    </Section>
  );
}
