/**
 * "Sign in with Google" when the server has GOOGLE_CLIENT_ID (the shell carries it in a meta
 * tag): Google's own button (Google Identity Services) hands us an ID token, which
 * POST /api/v1/auth/google exchanges for a Parley token (or, two-factor on, the sign-in page's code step).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { afterFirstStep, type SignInAnswer } from './second-step.ts';
import { Notice } from '../ui/Notice.tsx';

type Gsi = {
  accounts: {
    id: {
      initialize: (options: { client_id: string; callback: (response: { credential: string }) => void }) => void;
      renderButton: (element: HTMLElement, options: Record<string, unknown>) => void;
    };
  };
};

const clientId = document.querySelector<HTMLMetaElement>('meta[name="parley-google-client-id"]')?.content;

let gsiScript: Promise<Gsi> | null = null;
function loadGsi(): Promise<Gsi> {
  gsiScript ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = 'https://accounts.google.com/gsi/client';
    script.async = true;
    script.onload = () => resolve((window as unknown as { google: Gsi }).google);
    script.onerror = () => reject(new Error('Google sign-in could not be loaded'));
    document.head.appendChild(script);
  });
  return gsiScript;
}

export function GoogleButton({ next }: { next: string }) {
  const slot = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!clientId || !slot.current) return;
    const element = slot.current;
    loadGsi().then(
      (google) => {
        google.accounts.id.initialize({
          client_id: clientId,
          callback: ({ credential }) =>
            api.post<SignInAnswer>('/api/v1/auth/google', { id_token: credential }).then(
              (res) => afterFirstStep(res, next),
              (e: Error) => setError(e.message),
            ),
        });
        google.accounts.id.renderButton(element, { theme: 'outline', size: 'large', width: 320, text: 'continue_with' });
      },
      (e: Error) => setError(e.message),
    );
  }, []);
  if (!clientId) return null;
  return (
    <div class="google">
      <div class="divider">
        <span>or</span>
      </div>
      <div ref={slot} class="google-slot" />
      <Notice>{error}</Notice>
    </div>
  );
}
