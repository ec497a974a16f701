/** Who is signed in on this device: signing out (here or everywhere), the password, two-factor authentication, the e-mail signature (the sidebar's link is hidden on phones). */
import { useEffect, useId, useState } from 'preact/hooks';
import { FieldHint } from '../ui/FieldHint.tsx';
import { api } from '../api.ts';
import { storeToken } from '../session-token.ts';
import { can, leaveTeam, me, signOut, signOutEverywhere } from '../session.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { Section } from './Section.tsx';
import { Confirm, TwoFactorCard } from './TwoFactor.tsx';

function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, fieldErrors, onSubmit } = useAction(
    async () => {
      setDone(false);
      const res = await api.post<{ access_token: string }>('/api/v1/auth/password', { current_password: current, new_password: next });
      // Every other session ended: this tab carries on with the new token.
      storeToken(res.access_token);
      setCurrent('');
      setNext('');
      setDone(true);
    },
    { fields: ['current_password', 'new_password'] },
  );
  return (
    <form class="card stack" onSubmit={onSubmit} aria-label="Change password">
      <h3 class="subhead">Change password</h3>
      <Field
        label="Current password"
        error={fieldErrors.current_password}
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onInput={(e) => setCurrent(e.currentTarget.value)}
      />
      <Field
        label="New password"
        error={fieldErrors.new_password}
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters. Your other devices will be signed out."
        value={next}
        onInput={(e) => setNext(e.currentTarget.value)}
      />
      <Notice>{error}</Notice>
      {done && <Notice kind="success">Password changed. Your other devices were signed out.</Notice>}
      <div>
        <button class="btn" type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}

/** The member's own e-mail signature, appended to their e-mail replies before the channel's. */
function EmailSignature() {
  const signatureHint = useId();
  const [value, setValue] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(
    () =>
      void api.get<{ signature: string | null }>('/api/v1/team/signature').then(
        (r) => setValue(r.signature ?? ''),
        () => undefined,
      ),
    [],
  );
  const { busy, error, onSubmit } = useAction(async () => {
    setSaved(false);
    const r = await api.put<{ signature: string | null }>('/api/v1/team/signature', { signature: value.trim() || null });
    setValue(r.signature ?? '');
    setSaved(true);
  });
  return (
    <form class="card stack" onSubmit={onSubmit} aria-label="E-mail signature">
      <h3 class="subhead">E-mail signature</h3>
      <label class="field">
        <span class="field-label">Your signature</span>
        <textarea
          class="input"
          aria-describedby={signatureHint}
          rows={3}
          maxLength={2000}
          placeholder={'Grace Hopper\nSupport lead'}
          value={value}
          onInput={(e) => (setValue(e.currentTarget.value), setSaved(false))}
        />
        <FieldHint id={signatureHint}>Added below your e-mail replies, before the channel's own signature. Plain text.</FieldHint>
      </label>
      <Notice>{error}</Notice>
      {saved && <Notice kind="success">Signature saved.</Notice>}
      <div>
        <button class="btn" type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save signature'}
        </button>
      </div>
    </form>
  );
}

export function Account() {
  const user = me.value?.user;
  const [confirmEverywhere, setConfirmEverywhere] = useState(false);
  const leave = useAction(leaveTeam);
  if (!user) return null;
  return (
    <Section title="Your account">
      <div class="card card-row">
        <Avatar name={user.full_name} size={44} />
        <div class="grow">
          <div class="card-title">{user.full_name}</div>
          <div class="small muted">
            {user.email} · {user.is_verified ? 'verified' : 'not verified yet'}
            {user.is_google_account ? ' · Google account' : ''} · {me.value?.team_role} of {me.value?.business?.name}
          </div>
        </div>
        <button class="btn" type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </div>
      {me.value?.business && <EmailSignature />}
      <ChangePassword />
      <TwoFactorCard />
      <div class="card stack" aria-label="Sign out everywhere">
        <div class="card-row">
          <div class="grow">
            <div class="card-title">Sign out everywhere</div>
            <div class="small muted">Ends every session of your account, on every device and browser, this one included.</div>
          </div>
          {!confirmEverywhere && (
            <button class="btn danger" type="button" onClick={() => setConfirmEverywhere(true)}>
              Sign out everywhere
            </button>
          )}
        </div>
        {confirmEverywhere && (
          <Confirm title="Sign out everywhere" action={signOutEverywhere} onDone={() => undefined} onCancel={() => setConfirmEverywhere(false)} />
        )}
      </div>
      {can('team.leave') && (
        <div class="card card-row">
          <div class="grow">
            <div class="card-title">Leave team</div>
            <div class="small muted">
              You stop being a member of {me.value?.business?.name}: its conversations assigned to you go back to the team. Your account stays, and you can
              create your own workspace.
            </div>
          </div>
          <button
            class="btn danger"
            type="button"
            disabled={leave.busy}
            onClick={() => confirm(`Leave ${me.value?.business?.name ?? 'this team'}?`) && leave.run()}
          >
            Leave team
          </button>
        </div>
      )}
      <Notice>{leave.error}</Notice>
    </Section>
  );
}
