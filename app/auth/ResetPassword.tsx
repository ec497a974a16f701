/** The page the reset mail links to (APP_URL/reset-password?token=… lands here): choose a new password, then you are signed in. */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { currentLocation, linkClick } from '../router.ts';
import { ApiError } from '../api.ts';
import { afterFirstStep, secondFactor, type SignInAnswer } from './second-step.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { refusal, useAction } from '../ui/useAction.ts';
import { AuthLayout } from './AuthLayout.tsx';

export function ResetPassword() {
  const token = currentLocation.value.query.get('token');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  // Two-factor on: the server asks for the code before it changes anything (a mailbox is not a second factor).
  const [askCode, setAskCode] = useState(false);
  const [code, setCode] = useState('');
  const { busy, error, fieldErrors, onSubmit } = useAction(
    async (): Promise<void> => {
      if (password !== repeat) throw refusal('repeat', 'Not the same as the new password.');
      try {
        const res = await api.post<SignInAnswer>('/api/v1/auth/password-reset/confirm', { token, password, ...(askCode ? secondFactor(code) : {}) });
        await afterFirstStep(res);
      } catch (e) {
        if (e instanceof ApiError && e.fields.code) setAskCode(true);
        throw e;
      }
    },
    { fields: ['password', 'repeat', 'code'] },
  );
  if (!token) {
    return (
      <AuthLayout title="Reset your password">
        <Notice>This link has no reset token. Open the link from the e-mail again.</Notice>
        <a class="btn primary block" href="/app/forgot-password" onClick={(e) => linkClick(e, '/app/forgot-password')}>
          Ask for a new link
        </a>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Choose a new password" subtitle="Every other session of your account will be signed out.">
      <form onSubmit={onSubmit} class="stack">
        <Field
          label="New password"
          error={fieldErrors.password}
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <Field
          label="Repeat it"
          error={fieldErrors.repeat}
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={repeat}
          onInput={(e) => setRepeat(e.currentTarget.value)}
        />
        {askCode && (
          <Field
            label="Code from your authenticator app, or a recovery code"
            hint="Two-factor authentication is on for this account."
            error={fieldErrors.code}
            autoComplete="one-time-code"
            autoCapitalize="off"
            spellcheck={false}
            required
            placeholder="123 456"
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        )}
        <Notice>{error}</Notice>
        <button class="btn primary block" type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Set password and sign in'}
        </button>
      </form>
      <p class="auth-switch">
        <a href="/app/forgot-password" onClick={(e) => linkClick(e, '/app/forgot-password')}>
          Ask for a new link
        </a>
      </p>
    </AuthLayout>
  );
}
