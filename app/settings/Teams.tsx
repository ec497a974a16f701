/**
 * Teams: groups of teammates that conversations are routed to. The owner and admins create,
 * rename and delete teams, choose who is in each, and switch team-scoped visibility (agents see
 * only their teams' conversations and their own); agents see the list.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, getPage, qs } from '../api.ts';
import { can, loadMembers, members } from '../session.ts';
import type { Member, Team } from '../types.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { useLoad } from '../ui/useLoad.ts';
import { loadTeams, teams } from '../inbox/teams.ts';
import { Section } from './Section.tsx';

type Draft = { name: string; description: string };

function TeamForm({
  initial,
  submitLabel,
  onSave,
  onCancel,
}: {
  initial: Draft;
  submitLabel: string;
  onSave: (d: Draft) => Promise<void>;
  onCancel?: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const act = useAction(
    async () => {
      await onSave(draft);
      if (!onCancel) setDraft(initial);
    },
    { fields: ['name', 'description'] },
  );
  const set = (k: keyof Draft) => (e: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [k]: e.currentTarget.value });
  return (
    <form class="card stack" onSubmit={act.onSubmit} aria-label={onCancel ? `Edit ${initial.name}` : 'New team'}>
      <Field label="Name" error={act.fieldErrors.name} required maxLength={80} value={draft.name} onInput={set('name')} placeholder="Billing" />
      <Field
        label="Description"
        error={act.fieldErrors.description}
        maxLength={500}
        value={draft.description}
        onInput={set('description')}
        placeholder="What this team handles (optional)"
      />
      <Notice>{act.error}</Notice>
      <div class="row-end">
        {onCancel && (
          <button type="button" class="btn ghost" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button class="btn primary" type="submit" disabled={act.busy || !draft.name.trim()}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

/** Every member of the team (all pages). */
async function teamMembers(teamId: string): Promise<Member[]> {
  const all: Member[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Member[]; next: string | null } = await getPage<Member>(`/api/v1/teams/${teamId}/members${qs({ limit: 200, cursor })}`);
    all.push(...page.items);
    cursor = page.next;
  } while (cursor);
  return all;
}

/** Who is in the team: names for everyone; checkboxes of the business's members for managers. */
function TeamMembers({ team, manage }: { team: Team; manage: boolean }) {
  const { data, error, setData } = useLoad(() => teamMembers(team.id), [team.id]);
  // The boxes show the wanted members at once; a refusal puts them back.
  const [wanted, setWanted] = useState<string[] | null>(null);
  const save = useAction(async (ids: string[]) => {
    setWanted(ids);
    try {
      await api.put(`/api/v1/teams/${team.id}/members`, { member_ids: ids });
      setData(await teamMembers(team.id));
      await loadTeams();
    } finally {
      setWanted(null);
    }
  });
  if (error) return <Notice>{error}</Notice>;
  if (!data) return <div class="spinner" role="status" aria-label="Loading" />;
  const inTeam = new Set(wanted ?? data.map((m) => m.id));
  if (!manage) return <div class="small muted">{data.length ? data.map((m) => m.name).join(', ') : 'Nobody yet.'}</div>;
  const toggle = (id: string) => void save.run(inTeam.has(id) ? [...inTeam].filter((x) => x !== id) : [...inTeam, id]);
  return (
    <div class="stack-tight">
      <div class="chip-choices" role="group" aria-label={`Members of ${team.name}`}>
        {members.value
          .filter((m) => m.is_active)
          .map((m) => (
            <label class="chip-choice">
              <input type="checkbox" checked={inTeam.has(m.id)} disabled={save.busy} onChange={() => toggle(m.id)} />
              <span>{m.name}</span>
            </label>
          ))}
      </div>
      <Notice>{save.error}</Notice>
    </div>
  );
}

type AssignmentSettings = { team_visibility: boolean };

function VisibilitySwitch() {
  const { data, error, setData } = useLoad(() => api.get<AssignmentSettings>('/api/v1/settings/assignment'));
  const manage = can('assignment_settings.update');
  const [wanted, setWanted] = useState<boolean | null>(null);
  const toggle = useAction(async (on: boolean) => {
    setWanted(on);
    try {
      setData(await api.patch<AssignmentSettings>('/api/v1/settings/assignment', { team_visibility: on }));
    } finally {
      setWanted(null);
    }
  });
  if (error) return <Notice>{error}</Notice>;
  if (!data) return null;
  const on = wanted ?? data.team_visibility;
  return (
    <>
      <div class="card card-row">
        <div class="grow">
          <div class="card-title">Agents see only their teams' conversations</div>
          <div class="small muted">
            {on
              ? 'On: agents see the conversations of their teams and those assigned to them, everywhere (inbox, search, notifications, API). Owners and admins see everything.'
              : 'Off: every teammate sees every conversation.'}
          </div>
        </div>
        <label class="switch">
          <input
            type="checkbox"
            role="switch"
            aria-label="Agents see only their teams' conversations"
            checked={on}
            disabled={!manage}
            onChange={(e) => void toggle.run(e.currentTarget.checked)}
          />
          <span aria-hidden="true" />
        </label>
      </div>
      <Notice>{toggle.error}</Notice>
    </>
  );
}

export function Teams() {
  const [error, setError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([loadTeams(), loadMembers()]).then(
      () => setLoaded(true),
      (e: Error) => setError(e.message),
    );
  }, []);
  const manage = can('teams.manage');
  const remove = useAction(async (team: Team) => {
    await api.delete(`/api/v1/teams/${team.id}`);
    await loadTeams();
  });
  const create = async (d: Draft) => {
    await api.post('/api/v1/teams', d);
    await loadTeams();
  };
  const update = (id: string) => async (d: Draft) => {
    await api.patch(`/api/v1/teams/${id}`, d);
    setEditing(null);
    await loadTeams();
  };
  return (
    <Section
      title="Teams"
      intro={
        manage
          ? "Group teammates into teams, route conversations to a team (by hand, or by a channel's default team), and auto-assignment hands a team's conversations to its members only."
          : 'The teams conversations are routed to. The owner and admins manage them.'
      }
      error={error}
      loading={!loaded}
    >
      <VisibilitySwitch />
      <ul class="cards" aria-label="Teams">
        {teams.value.map((team) =>
          editing === team.id ? (
            <li>
              <TeamForm
                initial={{ name: team.name, description: team.description }}
                submitLabel="Save"
                onSave={update(team.id)}
                onCancel={() => setEditing(null)}
              />
            </li>
          ) : (
            <li class="card stack" aria-label={team.name}>
              <div class="card-row">
                <div class="grow stack-tight">
                  <div class="card-title">
                    {team.name} <span class="small muted">· {team.member_count === 1 ? '1 member' : `${team.member_count} members`}</span>
                  </div>
                  {team.description && <div class="small muted">{team.description}</div>}
                </div>
                {manage && (
                  <div class="card-actions">
                    <button class="btn small" onClick={() => setEditing(team.id)} aria-label={`Rename ${team.name}`}>
                      Rename
                    </button>
                    <button
                      class="btn small danger"
                      disabled={remove.busy}
                      onClick={() => confirm(`Delete the team "${team.name}"? Its conversations are left without a team.`) && remove.run(team)}
                      aria-label={`Delete ${team.name}`}
                    >
                      Delete
                    </button>
                  </div>
                )}
              </div>
              <TeamMembers team={team} manage={manage} />
            </li>
          ),
        )}
      </ul>
      {teams.value.length === 0 && (
        <p class="muted">No teams yet.{manage ? ' Start with the groups you already have: billing, technical support, sales.' : ''}</p>
      )}
      <Notice>{remove.error}</Notice>
      {manage && (
        <>
          <h3 class="subhead">Add a team</h3>
          <TeamForm initial={{ name: '', description: '' }} submitLabel="Add team" onSave={create} />
        </>
      )}
    </Section>
  );
}
