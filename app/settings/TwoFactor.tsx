/**
 * Settings → Your account → Two-factor authentication: set it up (QR code and the otpauth URI as
 * text, confirm with a code), see the recovery codes once, make new ones, turn it off. Also the
 * whole page a member sees while their business requires it and they have not set it up.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { CopyButton } from '../ui/CopyButton.tsx';
import { loadMe, me } from '../session.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { QrCode } from '../ui/QrCode.tsx';
import { useAction } from '../ui/useAction.ts';
import { secondFactor } from '../auth/second-step.ts';
import { CopyBox } from './Section.tsx';

type Setup = { secret: string; otpauth_uri: string };

/** The secret in groups of four, easier to type into an app by hand. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)!.join(' ');

/** Ten codes, shown this once: copy or download them before going on. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const text = codes.join('\n');
  const download = () => {
    const link = document.createElement('a');
    link.href = URL.createObjectURL(
      new Blob([`Parley recovery codes for ${me.value?.user.email ?? ''}\nEach works once.\n\n${text}\n`], { type: 'text/plain' }),
    );
    link.download = 'parley-recovery-codes.txt';
    link.click();
    URL.revokeObjectURL(link.href);
  };
  return (
    <div class="stack" aria-label="Recovery codes">
      <Notice kind="success">Save these recovery codes somewhere safe. Each one signs you in once if you lose your phone. They are shown only now.</Notice>
      <ul class="recovery-codes">
        {codes.map((code) => (
          <li>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div class="card-actions">
        <CopyButton text={text} class="btn" />
        <button type="button" class="btn" onClick={download}>
          Download
        </button>
        <button type="button" class="btn primary" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}

/** Setting it up: scan (or type), confirm with a code, then the recovery codes. */
export function TwoFactorSetup({ onCancel, onEnabled, onCodes }: { onCancel?: () => void; onEnabled: () => void; onCodes?: () => void }) {
  const [setup, setSetup] = useState<Setup | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useAction(async () => setSetup(await api.post<Setup>('/api/v1/auth/two-factor/setup')));
  const confirm = useAction(
    async () => {
      // The password too: a stolen session alone must not put a second factor in front of the account.
      const res = await api.post<{ recovery_codes: string[] }>('/api/v1/auth/two-factor/enable', { code: code.replace(/\s/g, ''), password });
      onCodes?.();
      setCodes(res.recovery_codes);
    },
    { fields: ['code', 'password'] },
  );
  if (codes) return <RecoveryCodes codes={codes} onDone={onEnabled} />;
  if (!setup) {
    return (
      <div class="stack">
        <p class="small muted">
          You will need an authenticator app on your phone, such as Google Authenticator, Microsoft Authenticator, 1Password, Authy or Aegis.
        </p>
        <Notice>{start.error}</Notice>
        <div class="card-actions">
          <button type="button" class="btn primary" disabled={start.busy} onClick={() => void start.run()}>
            {start.busy ? 'Starting…' : 'Set up two-factor authentication'}
          </button>
          {onCancel && (
            <button type="button" class="btn ghost" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      </div>
    );
  }
  return (
    <form class="stack" onSubmit={confirm.onSubmit} aria-label="Set up two-factor authentication">
      <ol class="steps">
        <li>Scan this QR code with your authenticator app, or enter the key by hand.</li>
      </ol>
      <div class="two-factor-setup">
        <QrCode value={setup.otpauth_uri} label="QR code for your authenticator app" />
        <div class="stack grow">
          <CopyBox label="Key" value={grouped(setup.secret)} />
          <CopyBox label="Setup link" value={setup.otpauth_uri} multiline />
        </div>
      </div>
      <ol class="steps" start={2}>
        <li>Enter the 6-digit code the app now shows for Parley.</li>
      </ol>
      <Field
        label="Code from the app"
        inputMode="numeric"
        autoComplete="one-time-code"
        required
        maxLength={7}
        placeholder="123 456"
        error={confirm.fieldErrors.code}
        value={code}
        onInput={(e) => setCode(e.currentTarget.value)}
      />
      <ol class="steps" start={3}>
        <li>Confirm with your password.</li>
      </ol>
      <ProofField value={password} onInput={setPassword} error={confirm.fieldErrors.password} />
      <Notice>{confirm.error}</Notice>
      <div class="card-actions">
        <button type="submit" class="btn primary" disabled={confirm.busy}>
          {confirm.busy ? 'Checking…' : 'Turn on'}
        </button>
        {onCancel && (
          <button type="button" class="btn ghost" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/**
 * Password (accounts with one), a code from the app, or a recovery code: what turning it off,
 * new codes, new API keys and signing out everywhere need (a stolen session alone must not).
 */
export function ownerProof(typed: string) {
  const hasPassword = !me.value?.user.is_google_account;
  if (!me.value?.two_factor.enabled) return { password: typed };
  const factor = secondFactor(typed);
  if ('code' in factor) return factor;
  if (/^[a-z2-7]{4}(-?[a-z2-7]{4}){3}$/i.test(typed.trim()) || !hasPassword) return factor;
  return { password: typed };
}

/** The field for ownerProof: "Your password" (with two-factor on: "or a code from your app"). */
export function ProofField({ value, onInput, error }: { value: string; onInput: (value: string) => void; error?: string | undefined }) {
  const hasPassword = !me.value?.user.is_google_account;
  const twoFactor = !!me.value?.two_factor.enabled;
  return (
    <Field
      label={twoFactor ? (hasPassword ? 'Your password, or a code from your app' : 'A code from your app, or a recovery code') : 'Your password'}
      hint={twoFactor ? undefined : hasPassword ? undefined : 'No password yet: set one with "Forgot password?" on the sign-in page.'}
      error={error}
      type={hasPassword ? 'password' : 'text'}
      autoComplete={hasPassword ? 'current-password' : 'one-time-code'}
      required
      value={value}
      onInput={(e) => onInput(e.currentTarget.value)}
    />
  );
}

export function Confirm({
  title,
  action,
  onDone,
  onCancel,
}: {
  title: string;
  action: (body: object) => Promise<void>;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [typed, setTyped] = useState('');
  const { busy, error, fieldErrors, onSubmit } = useAction(
    async () => {
      await action(ownerProof(typed));
      onDone();
    },
    { fields: ['password'] },
  );
  return (
    <form class="stack" onSubmit={onSubmit} aria-label={title}>
      <ProofField value={typed} onInput={setTyped} error={fieldErrors.password} />
      <Notice>{error}</Notice>
      <div class="card-actions">
        <button type="submit" class="btn danger" disabled={busy}>
          {busy ? 'Checking…' : title}
        </button>
        <button type="button" class="btn ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function TwoFactorCard() {
  const status = me.value?.two_factor;
  const [mode, setMode] = useState<'idle' | 'setup' | 'disable' | 'regenerate'>('idle');
  const [codes, setCodes] = useState<string[] | null>(null);
  if (!status) return null;
  const done = () => {
    setMode('idle');
    void loadMe();
  };
  return (
    <div class="card stack" aria-label="Two-factor authentication">
      <div class="card-row">
        <div class="grow">
          <h3 class="card-title">Two-factor authentication</h3>
          <div class="small muted">
            {status.enabled
              ? `On. Signing in asks for a code from your authenticator app. ${status.recovery_codes_left} recovery code${status.recovery_codes_left === 1 ? '' : 's'} left.`
              : 'Off. Add a code from an authenticator app to your password (or Google) when you sign in.'}
            {status.required_by_business && ' Your business requires it.'}
          </div>
        </div>
        <span class={status.enabled ? 'pill status-resolved' : 'pill'}>{status.enabled ? 'On' : 'Off'}</span>
      </div>
      {codes ? (
        <RecoveryCodes codes={codes} onDone={() => (setCodes(null), done())} />
      ) : mode === 'setup' ? (
        <TwoFactorSetup onCancel={() => setMode('idle')} onEnabled={done} />
      ) : mode === 'disable' ? (
        <Confirm title="Turn off" action={(body) => api.post('/api/v1/auth/two-factor/disable', body)} onDone={done} onCancel={() => setMode('idle')} />
      ) : mode === 'regenerate' ? (
        <Confirm
          title="Make new codes"
          action={async (body) => setCodes((await api.post<{ recovery_codes: string[] }>('/api/v1/auth/two-factor/recovery-codes', body)).recovery_codes)}
          onDone={() => setMode('idle')}
          onCancel={() => setMode('idle')}
        />
      ) : status.enabled ? (
        <div class="card-actions">
          <button type="button" class="btn" onClick={() => setMode('regenerate')}>
            New recovery codes
          </button>
          <button type="button" class="btn danger" onClick={() => setMode('disable')}>
            Turn off
          </button>
        </div>
      ) : (
        <div class="card-actions">
          <button type="button" class="btn primary" onClick={() => setMode('setup')}>
            Set up
          </button>
        </div>
      )}
    </div>
  );
}
