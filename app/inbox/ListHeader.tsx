/** Views (Mine / Unassigned / All / Snoozed) and the status, channel, label and priority filters above the list. */
import { liveState } from '../live.ts';
import { navigate } from '../router.ts';
import { channelTypes } from '../channel-types.ts';
import { filters, inboxUrl, PRIORITIES, SLA_FILTERS, STATUSES, VIEWS, type Filters } from './filters.ts';
import { ticked } from './BulkBar.tsx';
import { shortcutsOpen } from './Shortcuts.tsx';
import { labels } from './labels.ts';
import { NewConversationButton } from './NewConversation.tsx';
import { teams } from './teams.ts';

export function ListHeader() {
  const f = filters.value;
  const go = (next: Partial<Filters>) => {
    // Other filters, other rows: ticks do not carry over.
    ticked.value = [];
    navigate(inboxUrl(next));
  };
  return (
    <div class="list-header">
      <div class="list-title-row">
        <h1 class="list-title">Inbox</h1>
        {liveState.value === 'reconnecting' && (
          <span class="pill warn" role="status">
            Reconnecting…
          </span>
        )}
        <span class="list-title-actions">
          <NewConversationButton />
          <button
            class="btn xsmall ghost shortcuts-button"
            aria-label="Keyboard shortcuts"
            title="Keyboard shortcuts (?)"
            onClick={() => (shortcutsOpen.value = true)}
          >
            ?
          </button>
        </span>
      </div>
      <div class="tabs" role="tablist" aria-label="Views">
        {VIEWS.map((v) => (
          <button role="tab" aria-selected={f.view === v.id} class={`tab${f.view === v.id ? ' active' : ''}`} onClick={() => go({ view: v.id })}>
            {v.label}
          </button>
        ))}
      </div>
      <div class="filters">
        <select class="input small" aria-label="Status" value={f.status} onChange={(e) => go({ status: e.currentTarget.value as Filters['status'] })}>
          {STATUSES.map((s) => (
            <option value={s.id}>{s.label}</option>
          ))}
        </select>
        <select class="input small" aria-label="Channel" value={f.channel} onChange={(e) => go({ channel: e.currentTarget.value as Filters['channel'] })}>
          <option value="">All channels</option>
          {channelTypes.value.map((t) => (
            <option value={t.type}>{t.label}</option>
          ))}
        </select>
        <select class="input small" aria-label="Priority" value={f.priority} onChange={(e) => go({ priority: e.currentTarget.value as Filters['priority'] })}>
          <option value="">Any priority</option>
          {PRIORITIES.map((p) => (
            <option value={p.id}>{p.label}</option>
          ))}
        </select>
        <select class="input small" aria-label="SLA" value={f.sla} onChange={(e) => go({ sla: e.currentTarget.value as Filters['sla'] })}>
          {SLA_FILTERS.map((s) => (
            <option value={s.id}>{s.label}</option>
          ))}
        </select>
        {(labels.value.length > 0 || f.label) && (
          <select class="input small" aria-label="Label" value={f.label} onChange={(e) => go({ label: e.currentTarget.value })}>
            <option value="">All labels</option>
            {f.label && !labels.value.some((l) => l.name === f.label) && <option value={f.label}>{f.label}</option>}
            {labels.value.map((l) => (
              <option value={l.name}>{l.name}</option>
            ))}
          </select>
        )}
        {(teams.value.length > 0 || f.team) && (
          <select class="input small" aria-label="Team" value={f.team} onChange={(e) => go({ team: e.currentTarget.value })}>
            <option value="">All teams</option>
            <option value="none">No team</option>
            {f.team && f.team !== 'none' && !teams.value.some((x) => x.id === f.team) && <option value={f.team}>Unknown team</option>}
            {teams.value.map((x) => (
              <option value={x.id}>{x.name}</option>
            ))}
          </select>
        )}
      </div>
    </div>
  );
}
