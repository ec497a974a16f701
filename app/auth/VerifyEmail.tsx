/** The page the verification mail links to (APP_URL/verify-email?token=… lands here). */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { currentLocation, linkClick } from '../router.ts';
import { token as accessToken } from '../session-token.ts';
import { loadMe } from '../session.ts';
import { AuthLayout } from './AuthLayout.tsx';
import { Notice } from '../ui/Notice.tsx';

export function VerifyEmail() {
  const [state, setState] = useState<'working' | 'done' | 'failed'>('working');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const token = currentLocation.value.query.get('token');
    if (!token) {
      setState('failed');
      setError('This link has no verification token. Open the link from the e-mail again.');
      return;
    }
    api.post('/api/v1/auth/verify-email', { token }).then(
      () => {
        setState('done');
        // Read again rather than patched: a profile read still in flight would be stale.
        if (accessToken.value) void loadMe().catch(() => {});
      },
      (e: Error) => {
        setState('failed');
        setError(e.message);
      },
    );
  }, []);
  const next = accessToken.value ? '/app/inbox' : '/app/signin';
  return (
    <AuthLayout title={state === 'done' ? 'E-mail verified' : state === 'failed' ? 'Verification failed' : 'Verifying your e-mail…'}>
      {state === 'done' && <Notice kind="success">Thanks — your e-mail address is confirmed.</Notice>}
      <Notice>{error}</Notice>
      {state !== 'working' && (
        <a class="btn primary block" href={next} onClick={(e) => linkClick(e, next)}>
          {accessToken.value ? 'Go to the inbox' : 'Sign in'}
        </a>
      )}
    </AuthLayout>
  );
}
