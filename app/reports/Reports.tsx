/**
 * Reports (owner and admins): the last 7, 30 or 90 days in the browser's time zone —
 * conversations opened and resolved, first response and resolution times (median and 90th
 * percentile), a chart by day, and tables per agent, channel and label, each downloadable as CSV.
 * The chart is a small hand-written SVG (two bar series), so no chart library ships to agents.
 */
import { api, download, qs } from '../api.ts';
import type { AgentsReport, ChannelsReport, LabelsReport, OverviewReport, ReportFigures } from '../types.ts';
import { channelLabel } from '../channel-types.ts';
import { navigate, currentLocation } from '../router.ts';
import { ChannelIcon } from '../ui/channels.tsx';
import { Notice } from '../ui/Notice.tsx';
import { duration } from '../ui/time.ts';
import { useLoad } from '../ui/useLoad.ts';
import { useAction } from '../ui/useAction.ts';

const RANGES = [7, 30, 90] as const;
type Days = (typeof RANGES)[number];

/** The browser's IANA zone: days in the reports are the agent's own days. */
const zone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** YYYY-MM-DD of a local date `daysAgo` before today. */
function localDay(daysAgo: number): string {
  const d = new Date();
  d.setDate(d.getDate() - daysAgo);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const rangeQuery = (days: Days) => ({ from: localDay(days - 1), to: localDay(0), tz: zone() });

const time = (seconds: number | null) => (seconds === null ? '—' : duration(seconds));
const shortDate = (iso: string) => new Date(`${iso}T12:00:00Z`).toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });

function Figure({ label, value, sub }: { label: string; value: string; sub?: string }) {
  return (
    <div class="card figure">
      <div class="figure-value">{value}</div>
      <div class="figure-label muted small">{label}</div>
      {sub && <div class="figure-sub muted small">{sub}</div>}
    </div>
  );
}

/** Opened and resolved per day as paired bars; each day's figures are in its tooltip. */
function DayChart({ days }: { days: OverviewReport['days'] }) {
  const max = Math.max(1, ...days.map((d) => Math.max(d.opened, d.resolved)));
  const slot = 10;
  const bar = days.length > 45 ? 4 : 4.2;
  const total = days.reduce((n, d) => n + d.opened, 0);
  const summary = `Conversations per day from ${shortDate(days[0]!.date)} to ${shortDate(days[days.length - 1]!.date)}: ${total} opened, at most ${max} in a day.`;
  return (
    <figure class="day-chart">
      <div class="day-chart-plot">
        <span class="day-chart-max muted small" aria-hidden="true">
          {max}
        </span>
        <svg viewBox={`0 0 ${days.length * slot} 100`} preserveAspectRatio="none" role="img" aria-label={summary}>
          <line x1="0" y1="100" x2={days.length * slot} y2="100" class="day-chart-axis" vector-effect="non-scaling-stroke" />
          {days.map((d, i) => (
            <g key={d.date}>
              <title>{`${shortDate(d.date)}: ${d.opened} opened, ${d.resolved} resolved`}</title>
              <rect class="bar-opened" x={i * slot + 0.8} y={100 - (d.opened / max) * 100} width={bar} height={(d.opened / max) * 100} />
              <rect class="bar-resolved" x={i * slot + 0.8 + bar} y={100 - (d.resolved / max) * 100} width={bar} height={(d.resolved / max) * 100} />
            </g>
          ))}
        </svg>
      </div>
      <div class="day-chart-dates muted small" aria-hidden="true">
        <span>{shortDate(days[0]!.date)}</span>
        <span>{shortDate(days[Math.floor((days.length - 1) / 2)]!.date)}</span>
        <span>{shortDate(days[days.length - 1]!.date)}</span>
      </div>
      <figcaption class="day-chart-legend small">
        <span>
          <i class="swatch bar-opened" /> Opened
        </span>
        <span>
          <i class="swatch bar-resolved" /> Resolved
        </span>
      </figcaption>
    </figure>
  );
}

function FigureCells({ row }: { row: ReportFigures }) {
  return (
    <>
      <td class="num">{row.opened}</td>
      <td class="num">{row.resolved}</td>
      <td class="num">
        {time(row.first_response_median)} <span class="muted">/ {time(row.first_response_p90)}</span>
      </td>
      <td class="num">
        {time(row.resolution_median)} <span class="muted">/ {time(row.resolution_p90)}</span>
      </td>
    </>
  );
}

function ReportTable<R extends ReportFigures>({
  title,
  first,
  rows,
  cell,
  empty,
  onCsv,
  busy,
}: {
  title: string;
  first: string;
  rows: R[];
  cell: (row: R) => preact.ComponentChildren;
  empty: string;
  onCsv: () => void;
  busy: boolean;
}) {
  return (
    <section class="card stack report-section" aria-label={title}>
      <div class="report-section-head">
        <h2 class="card-title">{title}</h2>
        <button class="btn small" onClick={onCsv} disabled={busy} aria-label={`Download ${title.toLowerCase()} as CSV`}>
          CSV
        </button>
      </div>
      {rows.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <div class="table-scroll">
          <table class="report-table">
            <thead>
              <tr>
                <th scope="col">{first}</th>
                <th scope="col" class="num">
                  Opened
                </th>
                <th scope="col" class="num">
                  Resolved
                </th>
                <th scope="col" class="num" title="Median / 90th percentile">
                  First response
                </th>
                <th scope="col" class="num" title="Median / 90th percentile">
                  Resolution
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr>
                  <th scope="row">{cell(row)}</th>
                  <FigureCells row={row} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function Reports() {
  const asked = Number(currentLocation.value.query.get('days'));
  const days: Days = (RANGES as readonly number[]).includes(asked) ? (asked as Days) : 30;
  const query = rangeQuery(days);
  const { data, error } = useLoad(
    () =>
      Promise.all([
        api.get<OverviewReport>(`/api/v1/reports/overview${qs(query)}`),
        api.get<AgentsReport>(`/api/v1/reports/agents${qs(query)}`),
        api.get<ChannelsReport>(`/api/v1/reports/channels${qs(query)}`),
        api.get<LabelsReport>(`/api/v1/reports/labels${qs(query)}`),
      ]),
    [days],
  );
  const csv = useAction((kind: string) => download(`/api/v1/reports/${kind}${qs({ ...query, format: 'csv' })}`, `parley-${kind}.csv`));
  const exportCsv = (kind: string) => () => void csv.run(kind);
  const [overview, agents, channels, labels] = data ?? [];
  return (
    <div class="page reports">
      <div class="reports-head">
        <h1 class="page-title">Reports</h1>
        <div class="range-picker" role="group" aria-label="Date range">
          {RANGES.map((n) => (
            <button
              class={`btn small${n === days ? ' primary' : ''}`}
              aria-pressed={n === days}
              onClick={() => navigate(`/app/reports?days=${n}`, { replace: true })}
            >
              Last {n} days
            </button>
          ))}
        </div>
      </div>
      <p class="muted small">
        {shortDate(query.from)} – {shortDate(query.to)} in {query.tz}. Times are calendar time: median, and the 90th percentile after the slash.
      </p>
      <Notice>{error ?? csv.error}</Notice>
      {!data && !error && <div class="spinner" role="status" aria-label="Loading" />}
      {overview && agents && channels && labels && (
        <>
          <div class="figures">
            <Figure label="Opened" value={overview.totals.opened.toLocaleString()} />
            <Figure label="Resolved" value={overview.totals.resolved.toLocaleString()} />
            <Figure
              label="First response (median)"
              value={time(overview.totals.first_response_median)}
              sub={`90th percentile ${time(overview.totals.first_response_p90)}`}
            />
            <Figure
              label="Resolution (median)"
              value={time(overview.totals.resolution_median)}
              sub={`90th percentile ${time(overview.totals.resolution_p90)}`}
            />
          </div>
          <section class="card stack report-section" aria-label="By day">
            <div class="report-section-head">
              <h2 class="card-title">By day</h2>
              <button class="btn small" onClick={exportCsv('overview')} disabled={csv.busy} aria-label="Download by day as CSV">
                CSV
              </button>
            </div>
            <DayChart days={overview.days} />
          </section>
          <ReportTable
            title="Agents"
            first="Agent"
            rows={agents.rows}
            cell={(r) => r.name}
            empty="No members yet."
            onCsv={exportCsv('agents')}
            busy={csv.busy}
          />
          <ReportTable
            title="Channels"
            first="Channel"
            rows={channels.rows}
            cell={(r) => (
              <span class="report-channel">
                <ChannelIcon type={r.channel_type} size={14} /> {channelLabel(r.channel_type)}
              </span>
            )}
            empty="No conversations in this range."
            onCsv={exportCsv('channels')}
            busy={csv.busy}
          />
          <ReportTable
            title="Labels"
            first="Label"
            rows={labels.rows}
            cell={(r) => (
              <span class="label-chip">
                <span class="label-dot" style={{ background: r.color }} aria-hidden="true" />
                {r.name}
              </span>
            )}
            empty="No labels yet: add them in Settings to see conversations by topic."
            onCsv={exportCsv('labels')}
            busy={csv.busy}
          />
        </>
      )}
    </div>
  );
}
