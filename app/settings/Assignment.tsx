/** Auto-assignment: the switch, the capacity per agent and each agent's own limit (owner or admin; agents read). */
import { useEffect, useId, useState } from 'preact/hooks';
import { FieldHint } from '../ui/FieldHint.tsx';
import { api } from '../api.ts';
import { can } from '../session.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { useLoad } from '../ui/useLoad.ts';
import { Section } from './Section.tsx';

type AssignmentAgent = {
  member_id: string;
  user_id: string;
  full_name: string;
  role: string;
  status: 'live' | 'away' | 'offline';
  max_open: number | null;
  open_conversations: number;
};
type AssignmentSettings = { enabled: boolean; max_open_per_agent: number; agents: AssignmentAgent[] };

const statusText = { live: 'Live', away: 'Away', offline: 'Offline' } as const;

export function Assignment() {
  const capacityHint = useId();
  const { data, error, setData } = useLoad(() => api.get<AssignmentSettings>('/api/v1/settings/assignment'));
  const manage = can('assignment_settings.update');
  const [capacity, setCapacity] = useState('');
  const [limits, setLimits] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!data) return;
    setCapacity(String(data.max_open_per_agent));
    setLimits(Object.fromEntries(data.agents.map((a) => [a.member_id, a.max_open === null ? '' : String(a.max_open)])));
  }, [data]);

  // The switch shows the wanted state at once; a refusal puts it back.
  const [wanted, setWanted] = useState<boolean | null>(null);
  const toggle = useAction(async (on: boolean) => {
    setWanted(on);
    try {
      setData(await api.patch<AssignmentSettings>('/api/v1/settings/assignment', { enabled: on }));
    } finally {
      setWanted(null);
    }
  });
  const enabled = wanted ?? data?.enabled ?? false;
  const save = useAction(async () => {
    setSaved(false);
    const agents = (data?.agents ?? []).map((a) => ({ member_id: a.member_id, max_open: limits[a.member_id]?.trim() ? Number(limits[a.member_id]) : null }));
    setData(await api.patch<AssignmentSettings>('/api/v1/settings/assignment', { max_open_per_agent: Number(capacity), agents }));
    setSaved(true);
  });

  return (
    <Section
      title="Assignment"
      intro="New conversations go to your live teammates in turn, never beyond how many open conversations each can handle. When someone resolves a conversation or comes online, the longest-waiting conversation goes to them."
      error={error}
      loading={!data}
    >
      {data && (
        <>
          <div class="card card-row">
            <div class="grow">
              <div class="card-title">Auto-assign conversations</div>
              <div class="small muted">
                {enabled
                  ? 'On: conversations without an assignee are handed out automatically.'
                  : 'Off: conversations wait in Unassigned until someone takes them.'}
              </div>
            </div>
            <label class="switch">
              <input
                type="checkbox"
                role="switch"
                aria-label="Auto-assign conversations"
                checked={enabled}
                disabled={!manage}
                onChange={(e) => void toggle.run(e.currentTarget.checked)}
              />
              <span aria-hidden="true" />
            </label>
          </div>
          <Notice>{toggle.error}</Notice>

          <form class="card stack" aria-label="Capacity" onSubmit={save.onSubmit}>
            <label class="field capacity-field">
              <span class="field-label">Open conversations per agent</span>
              <input
                class="input"
                type="number"
                aria-describedby={capacityHint}
                min={1}
                max={1000}
                required
                value={capacity}
                disabled={!manage}
                onInput={(e) => setCapacity(e.currentTarget.value)}
              />
              <FieldHint id={capacityHint}>Open and pending conversations assigned to one person. Assigning by hand is never blocked.</FieldHint>
            </label>
            <div>
              <div class="field-label">Teammates</div>
              <ul class="assign-agents" aria-label="Teammates">
                {data.agents.map((a) => (
                  <li class="assign-agent" aria-label={a.full_name}>
                    <span class={`dot ${a.status}`} aria-hidden="true" />
                    <div class="grow stack-tight">
                      <span class="assign-name">{a.full_name}</span>
                      <span class="small muted">
                        {statusText[a.status]} · {a.open_conversations} of {a.max_open ?? data.max_open_per_agent} open
                      </span>
                    </div>
                    <label class="assign-limit">
                      <span class="small muted">Own limit</span>
                      <input
                        class="input small"
                        type="number"
                        min={0}
                        max={1000}
                        placeholder={String(data.max_open_per_agent)}
                        aria-label={`Own limit for ${a.full_name}`}
                        value={limits[a.member_id] ?? ''}
                        disabled={!manage}
                        onInput={(e) => setLimits({ ...limits, [a.member_id]: e.currentTarget.value })}
                      />
                    </label>
                  </li>
                ))}
              </ul>
              <p class="field-hint">
                Leave a limit empty to use the team's; 0 keeps that person out of automatic assignment. Only live teammates get conversations.
              </p>
            </div>
            <Notice>{save.error}</Notice>
            {manage && (
              <div class="row-end">
                {saved && !save.busy && (
                  <span class="small muted saved-note" role="status">
                    Saved
                  </span>
                )}
                <button class="btn primary" type="submit" disabled={save.busy}>
                  Save
                </button>
              </div>
            )}
          </form>
          {!manage && <p class="muted small">The owner and admins change these settings.</p>}
        </>
      )}
    </Section>
  );
}
