/**
 * What a member sees while their business requires two-factor authentication and they have not
 * set it up: the setup, and the ways out (leave the team, sign out). Nothing of the business is
 * shown: its routes refuse them until then (docs/decisions.md#two-factor-sign-in).
 */
import { useState } from 'preact/hooks';
import { signal } from '@preact/signals';
import { can, leaveTeam, loadMe, me, signOut } from '../session.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { TwoFactorSetup } from '../settings/TwoFactor.tsx';
import { AuthLayout } from './AuthLayout.tsx';

/**
 * Two-factor is on but the recovery codes are still on screen: the profile already says it is
 * set up (the server closes the live connection, the app reloads the profile), yet the page
 * stays until the member has saved them.
 */
export const showingRecoveryCodes = signal(false);

export function TwoFactorRequired() {
  const business = me.value?.business?.name ?? 'Your business';
  const [key, setKey] = useState(0);
  const leave = useAction(leaveTeam);
  const enabled = useAction(async () => {
    await loadMe();
    showingRecoveryCodes.value = false;
  });
  return (
    <AuthLayout
      title="Set up two-factor authentication"
      subtitle={`${business} requires two-factor authentication of every member. Set it up to continue to the inbox.`}
    >
      <TwoFactorSetup key={key} onCodes={() => (showingRecoveryCodes.value = true)} onEnabled={() => void enabled.run()} />
      <Notice>{enabled.error}</Notice>
      {enabled.error && (
        <button class="btn" type="button" onClick={() => setKey(key + 1)}>
          Start again
        </button>
      )}
      <div class="divider">
        <span>or</span>
      </div>
      <div class="card-actions">
        {can('team.leave') && (
          <button class="btn danger" type="button" disabled={leave.busy} onClick={() => confirm(`Leave ${business}?`) && leave.run()}>
            Leave {business}
          </button>
        )}
        <button class="btn" type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </div>
      <Notice>{leave.error}</Notice>
    </AuthLayout>
  );
}
