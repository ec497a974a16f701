/** "Forgot password?": asks for a reset link by e-mail (the same answer whether or not the address has an account). */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { linkClick } from '../router.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { AuthLayout } from './AuthLayout.tsx';

export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, fieldErrors, onSubmit } = useAction(
    async () => {
      const res = await api.post<{ message: string }>('/api/v1/auth/password-reset', { email });
      setSent(res.message);
    },
    { fields: ['email'] },
  );
  return (
    <AuthLayout title="Reset your password" subtitle="We'll e-mail you a link to choose a new one.">
      {sent ? (
        <Notice kind="success">{sent} The link works for an hour.</Notice>
      ) : (
        <form onSubmit={onSubmit} class="stack">
          <Field
            label="Email"
            error={fieldErrors.email}
            type="email"
            autoComplete="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          <Notice>{error}</Notice>
          <button class="btn primary block" type="submit" disabled={busy}>
            {busy ? 'Sending…' : 'Send the link'}
          </button>
        </form>
      )}
      <p class="auth-switch">
        <a href="/app/signin" onClick={(e) => linkClick(e, '/app/signin')}>
          Back to sign in
        </a>
      </p>
    </AuthLayout>
  );
}
