/**
 * Reports (owner and admins): the last 7, 30 or 90 days in the browser's time zone —
 * conversations opened and resolved, first response and resolution times (median and 90th
 * percentile; in business hours when they are on), a chart by day, tables per agent, channel and
 * label, customer satisfaction (average, share of 4s and 5s, the spread of ratings, ratings by
 * day) and SLA targets (hit rates, met and breached by day, per policy), each downloadable as CSV.
 * The charts are small hand-written SVGs and HTML bars, so no chart library ships to agents.
 */
import { api, download, qs } from '../api.ts';
import type { AgentsReport, ChannelsReport, CsatReport, LabelsReport, OverviewReport, ReportFigures, SlaFigures, SlaReport } from '../types.ts';
import { channelLabel } from '../channel-types.ts';
import { navigate, currentLocation } from '../router.ts';
import { ChannelIcon } from '../ui/channels.tsx';
import { Notice } from '../ui/Notice.tsx';
import { TableScroll } from '../ui/TableScroll.tsx';
import { duration } from '../ui/time.ts';
import { useLoad } from '../ui/useLoad.ts';
import { useAction } from '../ui/useAction.ts';
import { usePageTitle } from '../shell/title.ts';

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

type Series<D> = { label: string; cls: string; value: (d: D) => number };

/** Paired bars per day (one per series); each day's figures are in its tooltip. */
function DayChart<D extends { date: string }>({ days, series, summary }: { days: D[]; series: Series<D>[]; summary: (max: number) => string }) {
  const max = Math.max(1, ...days.flatMap((d) => series.map((s) => s.value(d))));
  const slot = 10;
  const bar = (days.length > 45 ? 8 : 8.4) / series.length;
  return (
    <figure class="day-chart">
      <div class="day-chart-plot">
        <span class="day-chart-max muted small" aria-hidden="true">
          {max}
        </span>
        <svg viewBox={`0 0 ${days.length * slot} 100`} preserveAspectRatio="none" role="img" aria-label={summary(max)}>
          <line x1="0" y1="100" x2={days.length * slot} y2="100" class="day-chart-axis" vector-effect="non-scaling-stroke" />
          {days.map((d, i) => (
            <g key={d.date}>
              <title>{`${shortDate(d.date)}: ${series.map((s) => `${s.value(d)} ${s.label.toLowerCase()}`).join(', ')}`}</title>
              {series.map((s, j) => (
                <rect class={s.cls} x={i * slot + 0.8 + j * bar} y={100 - (s.value(d) / max) * 100} width={bar} height={(s.value(d) / max) * 100} />
              ))}
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
        {series.map((s) => (
          <span>
            <i class={`swatch ${s.cls}`} /> {s.label}
          </span>
        ))}
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
      <SectionHead title={title} onCsv={onCsv} busy={busy} />
      {rows.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <TableScroll label={`${title} table`}>
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
        </TableScroll>
      )}
    </section>
  );
}

const percent = (value: number | null) => (value === null ? '—' : `${value.toLocaleString(undefined, { maximumFractionDigits: 1 })}%`);

function SectionHead({ title, onCsv, busy }: { title: string; onCsv: () => void; busy: boolean }) {
  return (
    <div class="report-section-head">
      <h2 class="card-title">{title}</h2>
      <button type="button" class="btn small" onClick={onCsv} disabled={busy} aria-label={`Download ${title.toLowerCase()} as CSV`}>
        CSV
      </button>
    </div>
  );
}

const STARS = ['5', '4', '3', '2', '1'] as const;

/** Average, share of 4s and 5s, the spread of ratings as bars, and satisfied / not satisfied by day. */
function CsatSection({ report, onCsv, busy }: { report: CsatReport; onCsv: () => void; busy: boolean }) {
  const t = report.totals;
  const most = Math.max(1, ...STARS.map((r) => t.distribution[r]));
  const satisfied = (d: CsatReport['days'][number]) => d.distribution['4'] + d.distribution['5'];
  return (
    <section class="card stack report-section" aria-label="Customer satisfaction">
      <SectionHead title="Customer satisfaction" onCsv={onCsv} busy={busy} />
      <div class="figures report-figures">
        <Figure label="Average rating" value={t.average === null ? '—' : `${t.average.toFixed(2)} / 5`} />
        <Figure label="Satisfied (4 or 5)" value={percent(t.satisfied_percent)} />
        <Figure label="Ratings" value={t.responses.toLocaleString()} sub={`${t.asked.toLocaleString()} ${t.asked === 1 ? 'survey' : 'surveys'} sent`} />
      </div>
      {t.responses === 0 ? (
        <p class="muted">No ratings in this range. Turn CSAT on in Settings to ask customers when a conversation is resolved.</p>
      ) : (
        <>
          <ul class="rating-bars" aria-label="Ratings by score">
            {STARS.map((r) => (
              <li class="rating-bar">
                <span class="rating-label">{r} ★</span>
                <span class="rating-track" aria-hidden="true">
                  <span class={`rating-fill rating-${r}`} style={{ width: `${(t.distribution[r] / most) * 100}%` }} />
                </span>
                <span class="num">{t.distribution[r]}</span>
              </li>
            ))}
          </ul>
          <DayChart
            days={report.days}
            series={[
              { label: 'Satisfied', cls: 'bar-satisfied', value: satisfied },
              { label: 'Not satisfied', cls: 'bar-unsatisfied', value: (d) => d.responses - satisfied(d) },
            ]}
            summary={(max) =>
              `Ratings per day: ${t.responses} ${t.responses === 1 ? 'rating' : 'ratings'}, ${percent(t.satisfied_percent)} satisfied, at most ${max} of a kind in a day.`
            }
          />
        </>
      )}
    </section>
  );
}

const TARGETS = [
  ['first_response', 'First response'],
  ['next_response', 'Next response'],
  ['resolution', 'Resolution'],
] as const;

const hitCell = (f: SlaFigures[(typeof TARGETS)[number][0]]) =>
  f.hit_rate === null ? (
    <span class="muted">—</span>
  ) : (
    <>
      {percent(f.hit_rate)} <span class="muted">{`${f.met}/${f.met + f.breached}`}</span>
    </>
  );

/** Hit rates per target, met and breached by day, and the same per policy. */
function SlaSection({ report, onCsv, busy }: { report: SlaReport; onCsv: () => void; busy: boolean }) {
  const t = report.totals;
  const met = (d: SlaFigures) => d.first_response.met + d.next_response.met + d.resolution.met;
  return (
    <section class="card stack report-section" aria-label="SLA targets">
      <SectionHead title="SLA targets" onCsv={onCsv} busy={busy} />
      <div class="figures report-figures">
        {TARGETS.map(([key, label]) => (
          <Figure
            label={`${label} met`}
            value={percent(t[key].hit_rate)}
            sub={t[key].hit_rate === null ? 'nothing measured' : `${t[key].met} of ${t[key].met + t[key].breached}`}
          />
        ))}
        <Figure label="Breaches" value={t.breaches.toLocaleString()} />
      </div>
      {report.policies.length === 0 ? (
        <p class="muted">No SLA policies yet: add one in Settings to set response and resolution targets.</p>
      ) : (
        <>
          <DayChart
            days={report.days}
            series={[
              { label: 'Met', cls: 'bar-met', value: met },
              { label: 'Breached', cls: 'bar-breached', value: (d) => d.breaches },
            ]}
            summary={(max) => `SLA targets per day: ${met(t)} met, ${t.breaches} breached, at most ${max} in a day.`}
          />
          <TableScroll label="SLA targets by policy">
            <table class="report-table">
              <thead>
                <tr>
                  <th scope="col">Policy</th>
                  {TARGETS.map(([, label]) => (
                    <th scope="col" class="num" title="Met in time, of all settled">
                      {label}
                    </th>
                  ))}
                  <th scope="col" class="num">
                    Breaches
                  </th>
                </tr>
              </thead>
              <tbody>
                {report.policies.map((p) => (
                  <tr>
                    <th scope="row">{p.name}</th>
                    {TARGETS.map(([key]) => (
                      <td class="num">{hitCell(p[key])}</td>
                    ))}
                    <td class="num">{p.breaches}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
    </section>
  );
}

export function Reports() {
  usePageTitle('Reports');
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
        api.get<CsatReport>(`/api/v1/reports/csat${qs(query)}`),
        api.get<SlaReport>(`/api/v1/reports/sla${qs(query)}`),
      ]),
    [days],
  );
  const csv = useAction((kind: string) => download(`/api/v1/reports/${kind}${qs({ ...query, format: 'csv' })}`, `parley-${kind}.csv`));
  const exportCsv = (kind: string) => () => void csv.run(kind);
  const [overview, agents, channels, labels, csatReport, slaReport] = data ?? [];
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
        {shortDate(query.from)} – {shortDate(query.to)} in {query.tz}.
        {overview &&
          (overview.time_basis === 'business_hours'
            ? ' Times count business hours only (while the team is open): median, and the 90th percentile after the slash.'
            : ' Times are calendar time: median, and the 90th percentile after the slash.')}
      </p>
      <Notice>{error ?? csv.error}</Notice>
      {!data && !error && <div class="spinner" role="status" aria-label="Loading" />}
      {overview && agents && channels && labels && csatReport && slaReport && (
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
            <SectionHead title="By day" onCsv={exportCsv('overview')} busy={csv.busy} />
            <DayChart
              days={overview.days}
              series={[
                { label: 'Opened', cls: 'bar-opened', value: (d) => d.opened },
                { label: 'Resolved', cls: 'bar-resolved', value: (d) => d.resolved },
              ]}
              summary={(max) =>
                `Conversations per day from ${shortDate(overview.days[0]!.date)} to ${shortDate(overview.days[overview.days.length - 1]!.date)}: ${overview.totals.opened} opened, at most ${max} in a day.`
              }
            />
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
          <CsatSection report={csatReport} onCsv={exportCsv('csat')} busy={csv.busy} />
          <SlaSection report={slaReport} onCsv={exportCsv('sla')} busy={csv.busy} />
        </>
      )}
    </div>
  );
}
