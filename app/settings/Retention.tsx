/** Settings → Data retention: how long resolved and closed conversations are kept (owners and admins change it). */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { can } from '../session.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { Section } from './Section.tsx';

type RetentionSettings = { days: number | null };

export function Retention() {
  const [data, setData] = useState<RetentionSettings | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [keep, setKeep] = useState<'forever' | 'days'>('forever');
  const [days, setDays] = useState('365');
  const [saved, setSaved] = useState(false);
  useEffect(
    () =>
      void api.get<RetentionSettings>('/api/v1/settings/retention').then(
        (settings) => {
          setData(settings);
          setKeep(settings.days === null ? 'forever' : 'days');
          if (settings.days !== null) setDays(String(settings.days));
        },
        (e: Error) => setError(e.message),
      ),
    [],
  );
  const mayChange = can('retention.update');
  const save = useAction(
    async () => {
      setSaved(false);
      setData(await api.patch<RetentionSettings>('/api/v1/settings/retention', { days: keep === 'forever' ? null : Number(days) }));
      setSaved(true);
    },
    { fields: ['days'] },
  );
  return (
    <Section
      title="Data retention"
      intro="How long Parley keeps conversations that are resolved or closed. Open and pending conversations, and customers, are always kept."
      error={error}
      loading={!data}
    >
      {data && (
        <form class="card stack" aria-label="Data retention" onSubmit={save.onSubmit}>
          <label class="check">
            <input type="radio" name="keep" checked={keep === 'forever'} disabled={!mayChange} onChange={() => setKeep('forever')} /> Keep them forever
          </label>
          <label class="check">
            <input type="radio" name="keep" checked={keep === 'days'} disabled={!mayChange} onChange={() => setKeep('days')} /> Delete them when their last
            message is older than
          </label>
          {keep === 'days' && (
            <Field
              label="Days"
              error={save.fieldErrors.days}
              type="number"
              min={1}
              max={36500}
              required
              disabled={!mayChange}
              value={days}
              onInput={(e) => setDays(e.currentTarget.value)}
              hint="Checked every night (03:23 UTC): their messages and files go too, and the audit log records how many."
            />
          )}
          <Notice>{save.error}</Notice>
          {saved && <Notice kind="success">Saved.</Notice>}
          {mayChange ? (
            <div>
              <button class="btn" type="submit" disabled={save.busy}>
                {save.busy ? 'Saving…' : 'Save'}
              </button>
            </div>
          ) : (
            <p class="small muted">Only the owner or an admin can change this.</p>
          )}
        </form>
      )}
    </Section>
  );
}
