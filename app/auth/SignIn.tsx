import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { currentLocation, linkClick } from '../router.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { AuthLayout } from './AuthLayout.tsx';
import { GoogleButton } from './GoogleButton.tsx';
import { SecondStep } from './SecondStep.tsx';
import { afterFirstStep, pendingChallenge, type SignInAnswer } from './second-step.ts';

/** Only app paths are followed after sign-in (never another site). */
function nextPath(): string {
  const next = currentLocation.value.query.get('next') ?? '';
  return next.startsWith('/app/') ? next : '/app/inbox';
}

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, onSubmit } = useAction(async () => {
    const res = await api.post<SignInAnswer>('/api/v1/auth/login', { email, password });
    setPassword('');
    await afterFirstStep(res, nextPath());
  });
  const challenge = pendingChallenge.value;
  if (challenge) {
    return (
      <AuthLayout title="Two-factor authentication" subtitle="One more step to sign in.">
        <SecondStep challenge={challenge.token} next={challenge.next} />
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Sign in to Parley" tab="Sign in" subtitle="Welcome back. Your conversations are waiting.">
      <form onSubmit={onSubmit} class="stack">
        <Field label="Email" type="email" autoComplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <Field label="Password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <p class="small forgot">
          <a href="/app/forgot-password" onClick={(e) => linkClick(e, '/app/forgot-password')}>
            Forgot password?
          </a>
        </p>
        <Notice>{error}</Notice>
        <button class="btn primary block" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <GoogleButton next={nextPath()} />
      <p class="auth-switch">
        New to Parley?{' '}
        <a href="/app/signup" onClick={(e) => linkClick(e, '/app/signup')}>
          Create an account
        </a>
      </p>
      <p class="auth-switch muted small">Invited to a team? Sign in (or create an account) with the e-mail address the invitation was sent to.</p>
    </AuthLayout>
  );
}
