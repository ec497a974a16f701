/** Team members with their availability; the owner invites and removes. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { can, loadMembers, me, members } from '../session.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { Availability } from '../shell/Availability.tsx';
import { Section } from './Section.tsx';

const STATUS = { live: 'Available', away: 'Away', offline: 'Offline' } as const;

function InviteForm() {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'agent' | 'admin'>('agent');
  const [done, setDone] = useState<string | null>(null);
  const act = useAction(
    async () => {
      setDone(null);
      await api.post(`/api/v1/team/invite?email=${encodeURIComponent(email.trim())}&role=${role}`);
      setDone(`${email.trim()} joined the team and got an e-mail with the link to sign in.`);
      setEmail('');
      await loadMembers();
    },
    { fields: ['email'] },
  );
  return (
    <form class="card stack" onSubmit={act.onSubmit} aria-label="Invite a teammate">
      <div class="row">
        <Field
          label="Teammate's e-mail"
          error={act.fieldErrors.email}
          type="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
          hint="They need a Parley account with this address first (signing up takes a minute)."
        />
        <label class="field">
          <span class="field-label">Role</span>
          <select class="input" value={role} onChange={(e) => setRole(e.currentTarget.value as 'agent' | 'admin')}>
            <option value="agent">Agent</option>
            <option value="admin">Admin</option>
          </select>
        </label>
      </div>
      <Notice>{act.error}</Notice>
      <Notice kind="success">{done}</Notice>
      <div class="row-end">
        <button class="btn primary" type="submit" disabled={act.busy}>
          Invite
        </button>
      </div>
    </form>
  );
}

export function Team() {
  // Availability changes live through the shell (AppShell), which this page is always inside.
  useEffect(() => void loadMembers(), []);
  const remove = useAction(async (id: string) => {
    await api.delete(`/api/v1/team/members/${id}`);
    await loadMembers();
  });
  return (
    <Section title="Team" intro="Everyone here answers conversations. Admins also manage channels and assignments.">
      <div class="card row">
        <span class="grow">Your availability</span>
        <Availability />
      </div>
      <ul class="cards" aria-label="Team members">
        {members.value.map((m) => (
          <li class="card card-row" aria-label={m.name}>
            <Avatar name={m.name} />
            <div class="grow">
              <div class="card-title">
                {m.name}
                {m.user_id === me.value?.user.id ? ' (you)' : ''}
              </div>
              <div class="small muted">
                {m.email} · {m.role}
              </div>
            </div>
            <span class="small">
              <span class={`dot ${m.status}`} /> {STATUS[m.status]}
            </span>
            {can('team.remove') && m.role !== 'owner' && (
              <button
                class="btn small danger"
                disabled={remove.busy}
                onClick={() => confirm(`Remove ${m.name} from the team?`) && remove.run(m.id)}
                aria-label={`Remove ${m.name}`}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      <Notice>{remove.error}</Notice>
      {can('team.invite') && (
        <>
          <h3 class="subhead">Invite a teammate</h3>
          <InviteForm />
        </>
      )}
    </Section>
  );
}
