import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { linkClick } from '../router.ts';
import { signedIn } from '../session.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { AuthLayout } from './AuthLayout.tsx';
import { GoogleButton } from './GoogleButton.tsx';

export function SignUp() {
  const [fullName, setFullName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, fieldErrors, onSubmit } = useAction(
    async () => {
      const res = await api.post<{ access_token: string }>('/api/v1/auth/register', { full_name: fullName, email, password });
      await signedIn(res.access_token);
    },
    { fields: ['full_name', 'email', 'password'] },
  );
  return (
    <AuthLayout title="Create your account" subtitle="Free to start. Set up your inbox in two minutes.">
      <form onSubmit={onSubmit} class="stack">
        <Field
          label="Full name"
          error={fieldErrors.full_name}
          autoComplete="name"
          required
          maxLength={100}
          value={fullName}
          onInput={(e) => setFullName(e.currentTarget.value)}
        />
        <Field
          label="Email"
          error={fieldErrors.email}
          type="email"
          autoComplete="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <Field
          label="Password"
          error={fieldErrors.password}
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          hint="At least 8 characters."
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <Notice>{error}</Notice>
        <button class="btn primary block" type="submit" disabled={busy}>
          {busy ? 'Creating account…' : 'Create account'}
        </button>
      </form>
      <GoogleButton next="/app/inbox" />
      <p class="auth-switch">
        Already have an account?{' '}
        <a href="/app/signin" onClick={(e) => linkClick(e, '/app/signin')}>
          Sign in
        </a>
      </p>
    </AuthLayout>
  );
}
