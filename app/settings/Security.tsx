/** Settings → Security (the owner): require two-factor authentication of every member. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { linkClick } from '../router.ts';
import { can, loadMe, me } from '../session.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { Section } from './Section.tsx';

type SecuritySettings = { require_two_factor: boolean; members_without_two_factor: number };

export function Security() {
  const [data, setData] = useState<SecuritySettings | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => void api.get<SecuritySettings>('/api/v1/settings/security').then(setData, (e: Error) => setError(e.message)), []);
  // The switch shows the wanted state at once; a refusal puts it back.
  const [wanted, setWanted] = useState<boolean | null>(null);
  const save = useAction(async (on: boolean) => {
    setWanted(on);
    try {
      setData(await api.patch<SecuritySettings>('/api/v1/settings/security', { require_two_factor: on }));
    } finally {
      setWanted(null);
    }
    await loadMe();
  });
  const required = wanted ?? data?.require_two_factor ?? false;
  const ownOn = me.value?.two_factor.enabled === true;
  const without = data?.members_without_two_factor ?? 0;
  return (
    <Section title="Security" intro="Protect every account that can read your customers' messages." error={error} loading={!data}>
      {data && (
        <div class="card stack">
          <div class="card-row">
            <div class="grow">
              <div class="card-title">Require two-factor authentication</div>
              <div class="small muted">
                {data.require_two_factor
                  ? 'On: every member signs in with a code from an authenticator app. Members without it must set it up before they can use the inbox.'
                  : 'Off: each member decides for their own account.'}
              </div>
            </div>
            <label class="switch">
              <input
                type="checkbox"
                role="switch"
                aria-label="Require two-factor"
                checked={required}
                disabled={!can('security_settings.update') || (!required && !ownOn)}
                onChange={(e) => void save.run(e.currentTarget.checked)}
              />
              <span aria-hidden="true" />
            </label>
          </div>
          {!ownOn && !data.require_two_factor && (
            <Notice kind="info">
              Turn on two-factor authentication for your own account first, under{' '}
              <a href="/app/settings/account" onClick={(e) => linkClick(e, '/app/settings/account')}>
                Your account
              </a>
              .
            </Notice>
          )}
          <div class="small muted">
            {without === 0
              ? 'Every member has two-factor authentication on.'
              : `${without} member${without === 1 ? '' : 's'} without two-factor authentication yet.`}
          </div>
        </div>
      )}
      <Notice>{save.error}</Notice>
    </Section>
  );
}
