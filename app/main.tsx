/** The agent app: signs the agent in, then routes between inbox, settings and analytics. */
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { signal } from '@preact/signals';
import './styles.css';
import { currentLocation } from './router.ts';
import { token } from './session-token.ts';
import { loadMe, me } from './session.ts';
import { connectLive, disconnectLive, onClosedByServer } from './live.ts';
import { SignIn } from './auth/SignIn.tsx';
import { SignUp } from './auth/SignUp.tsx';
import { VerifyEmail } from './auth/VerifyEmail.tsx';
import { ForgotPassword } from './auth/ForgotPassword.tsx';
import { ResetPassword } from './auth/ResetPassword.tsx';
import { Onboarding } from './auth/Onboarding.tsx';
import { AppShell } from './shell/AppShell.tsx';
import { Loading } from './ui/Loading.tsx';
import { Redirect } from './ui/Redirect.tsx';
import { showingRecoveryCodes, TwoFactorRequired } from './auth/TwoFactorRequired.tsx';

const PUBLIC = ['/app/signin', '/app/signup', '/app/verify-email', '/app/forgot-password', '/app/reset-password'];
const loadError = signal<string | null>(null);

function App() {
  const { path } = currentLocation.value;
  const signedIn = Boolean(token.value);

  // Profile on start and after signing in.
  useEffect(() => {
    if (token.value && !me.value)
      loadMe().then(
        () => (loadError.value = null),
        (e: Error) => (loadError.value = e.message),
      );
  }, [token.value]);
  // Live events while signed in (this tab's own socket). The server puts a socket in its
  // business's room when it connects, so joining a workspace reconnects.
  const businessId = me.value ? (me.value.business?.id ?? 'none') : null;
  useEffect(() => {
    if (!token.value || businessId === null) return; // once the profile is known
    connectLive(token.value);
    // Closed or refused by the server: a 401 signs out, a membership gone shows onboarding,
    // otherwise connect again a moment later (and keep checking while Parley is unreachable).
    const again = (delay: number) => setTimeout(() => token.value && connectLive(token.value), delay);
    const recheck = (): void =>
      void loadMe().then(
        () => again(1000),
        () => token.value && setTimeout(recheck, 3000),
      );
    const stop = onClosedByServer(recheck);
    return () => {
      stop();
      disconnectLive();
    };
  }, [token.value, businessId]);

  if (path === '/app/verify-email') return <VerifyEmail />;
  // A reset link works signed in or not (it signs in as the account it names).
  if (path === '/app/reset-password') return <ResetPassword />;
  if (!signedIn) {
    if (path === '/app/signup') return <SignUp />;
    if (path === '/app/forgot-password') return <ForgotPassword />;
    return path === '/app/signin' ? <SignIn /> : <Redirect to="/app/signin" />;
  }
  if (loadError.value) return <Loading error={loadError.value} />;
  const profile = me.value;
  if (!profile) return <Loading />;
  if (!profile.business) {
    return path === '/app/onboarding' ? <Onboarding /> : <Redirect to="/app/onboarding" />;
  }
  // The business requires two-factor and this member has not set it up: that comes first.
  if (profile.two_factor.setup_required || showingRecoveryCodes.value) return <TwoFactorRequired />;
  if (PUBLIC.includes(path) || path === '/app/onboarding' || path === '/app') return <Redirect to="/app/inbox" />;
  return <AppShell />;
}

render(<App />, document.getElementById('root')!);
