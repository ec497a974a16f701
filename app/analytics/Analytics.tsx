/** The last 30 days at a glance, and where conversations come from. */
import { api } from '../api.ts';
import type { Overview } from '../types.ts';
import { channelLabel } from '../channel-types.ts';
import { ChannelIcon } from '../ui/channels.tsx';
import { Notice } from '../ui/Notice.tsx';
import { duration } from '../ui/time.ts';
import { useLoad } from '../ui/useLoad.ts';
import { linkClick } from '../router.ts';
import { can } from '../session.ts';
import { usePageTitle } from '../shell/title.ts';

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div class="card figure">
      <div class="figure-value">{value}</div>
      <div class="figure-label muted small">{label}</div>
    </div>
  );
}

function ChannelMix({ mix }: { mix: Record<string, number> }) {
  const rows = Object.entries(mix).sort((a, b) => b[1] - a[1]);
  if (!rows.length) return <p class="muted">No conversations in the last 30 days yet.</p>;
  return (
    <ul class="mix" aria-label="Channel mix">
      {rows.map(([type, share]) => (
        <li class="mix-row">
          <span class="mix-label">
            <ChannelIcon type={type} size={14} /> {channelLabel(type)}
          </span>
          <span class="mix-bar">
            <span style={{ width: `${share}%` }} />
          </span>
          <span class="mix-value">{share.toFixed(1)}%</span>
        </li>
      ))}
    </ul>
  );
}

export function Analytics() {
  usePageTitle('Analytics');
  const { data, error } = useLoad(() => api.get<Overview>('/api/v1/analytics/overview'));
  return (
    <div class="page">
      <div class="reports-head">
        <h1 class="page-title">
          Analytics <span class="muted small">last 30 days</span>
        </h1>
        {can('reports.read') && (
          <a class="btn small" href="/app/reports" onClick={(e) => linkClick(e, '/app/reports')}>
            Reports by day, agent and label
          </a>
        )}
      </div>
      <Notice>{error}</Notice>
      {!data && !error && <div class="spinner" role="status" aria-label="Loading" />}
      {data && (
        <>
          <div class="figures">
            <Figure label="Conversations" value={data.total_conversations.toLocaleString()} />
            <Figure label="Avg. first response" value={data.avg_first_response ? duration(data.avg_first_response) : '—'} />
            <Figure label="Resolution rate" value={`${data.resolution_rate}%`} />
            <Figure label="Avg. time to resolve" value={data.median_handle_time ? duration(data.median_handle_time) : '—'} />
            <Figure label="Open now" value={String(data.quick_pulse_open)} />
            <Figure label="Agents online" value={String(data.active_agents)} />
          </div>
          <div class="two-col">
            <section class="card stack">
              <h2 class="card-title">Channel mix</h2>
              <ChannelMix mix={data.channel_mix} />
            </section>
            <section class="card stack">
              <h2 class="card-title">Top agents</h2>
              {data.top_agents.length ? (
                <ol class="top-agents">
                  {data.top_agents.map((a) => (
                    <li>
                      <span>{a.name}</span>
                      <span class="muted">{a.resolved} resolved</span>
                    </li>
                  ))}
                </ol>
              ) : (
                <p class="muted">Resolved conversations will rank your team here.</p>
              )}
            </section>
          </div>
        </>
      )}
    </div>
  );
}
