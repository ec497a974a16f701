/** After sign-up: create the workspace (or wait for an invitation to someone else's). */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { navigate } from '../router.ts';
import { loadMe, me, signOut } from '../session.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { AuthLayout } from './AuthLayout.tsx';

const TEAM_SIZES = ['Just me', '2–5', '6–20', '21–100', 'More than 100'];

export function Onboarding() {
  const [name, setName] = useState('');
  const [website, setWebsite] = useState('');
  const [teamSize, setTeamSize] = useState('');
  const { busy, error, fieldErrors, onSubmit } = useAction(
    async () => {
      await api.post('/api/v1/business', { name, website, team_size: teamSize });
      await loadMe();
      navigate('/app/inbox', { replace: true });
    },
    { fields: ['name', 'website'] },
  );
  const email = me.value?.user.email;
  return (
    <AuthLayout title="Set up your workspace" subtitle="Your team's shared inbox. You can change these later.">
      <form onSubmit={onSubmit} class="stack">
        <Field
          label="Workspace name"
          error={fieldErrors.name}
          required
          maxLength={100}
          placeholder="Acme Support"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <Field
          label="Website"
          error={fieldErrors.website}
          maxLength={200}
          placeholder="acme.com (optional)"
          value={website}
          onInput={(e) => setWebsite(e.currentTarget.value)}
        />
        <label class="field">
          <span class="field-label">Team size</span>
          <select class="input" value={teamSize} onChange={(e) => setTeamSize(e.currentTarget.value)}>
            <option value="">Choose (optional)</option>
            {TEAM_SIZES.map((size) => (
              <option value={size}>{size}</option>
            ))}
          </select>
        </label>
        <Notice>{error}</Notice>
        <button class="btn primary block" type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create workspace'}
        </button>
      </form>
      <div class="auth-switch muted small">
        <p>
          Joining a team instead? Ask its owner to invite <strong>{email}</strong>, then check again.
        </p>
        <button class="link" onClick={() => loadMe()}>
          I've been invited — check again
        </button>{' '}
        ·{' '}
        <button class="link" onClick={() => signOut()}>
          Sign out
        </button>
      </div>
    </AuthLayout>
  );
}
