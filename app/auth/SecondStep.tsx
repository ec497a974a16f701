/** The sign-in page's second step: a code from the authenticator app, or a recovery code. */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { signedIn } from '../session.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { pendingChallenge, secondFactor } from './second-step.ts';

export function SecondStep({ challenge, next }: { challenge: string; next: string }) {
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);
  const { busy, error, onSubmit } = useAction(async () => {
    const factor = recovery ? { recovery_code: code.trim() } : secondFactor(code);
    const res = await api.post<{ access_token: string }>('/api/v1/auth/login/two-factor', { challenge_token: challenge, ...factor });
    pendingChallenge.value = null;
    await signedIn(res.access_token, next);
  });
  return (
    <form onSubmit={onSubmit} class="stack" aria-label="Two-factor code">
      <p class="muted">
        {recovery
          ? 'Enter one of the recovery codes you saved when you set up two-factor authentication. Each works once.'
          : 'Open your authenticator app and enter the 6-digit code it shows for Parley.'}
      </p>
      {recovery ? (
        <Field
          key="recovery"
          label="Recovery code"
          autoComplete="off"
          autoCapitalize="off"
          spellcheck={false}
          required
          placeholder="abcd-efgh-ijkl-mnop"
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      ) : (
        <Field
          key="code"
          label="Authentication code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9 ]{6,7}"
          maxLength={7}
          required
          autoFocus
          placeholder="123 456"
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      )}
      <Notice>{error}</Notice>
      <button class="btn primary block" type="submit" disabled={busy}>
        {busy ? 'Checking…' : 'Verify and sign in'}
      </button>
      <p class="small">
        <button type="button" class="link-button" onClick={() => (setRecovery(!recovery), setCode(''))}>
          {recovery ? 'Use a code from the app instead' : 'Lost your device? Use a recovery code'}
        </button>
        {' · '}
        <button type="button" class="link-button" onClick={() => (pendingChallenge.value = null)}>
          Start over
        </button>
      </p>
    </form>
  );
}
