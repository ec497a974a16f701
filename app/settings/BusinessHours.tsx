/** Business hours: the week, time zone, holidays and the out-of-hours message (owner or admin; agents read). */
import { HOUR } from '../ui/time.ts';
import { useEffect, useId, useState } from 'preact/hooks';
import { FieldHint } from '../ui/FieldHint.tsx';
import { api } from '../api.ts';
import { can } from '../session.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { useLoad } from '../ui/useLoad.ts';
import { Section } from './Section.tsx';

const DAYS = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
] as const;
type Day = (typeof DAYS)[number][0];
type Shift = { open: string; close: string };
type Hours = {
  enabled: boolean;
  timezone: string;
  week: Record<Day, Shift[]>;
  holidays: string[];
  out_of_hours_message: string;
  is_open: boolean;
  next_open_at: string | null;
};

/** Turning hours on with no day open starts from the usual week, Monday–Friday 9:00–17:00 (rather than every day closed). */
const usualWeek = (): Record<Day, Shift[]> => {
  const day = () => [{ open: '09:00', close: '17:00' }];
  return { mon: day(), tue: day(), wed: day(), thu: day(), fri: day(), sat: [], sun: [] };
};
const noDayOpen = (week: Record<Day, Shift[]>) => DAYS.every(([day]) => week[day].length === 0);

/** A time input cannot hold 24:00: midnight at the end of the day is shown and entered as 00:00 in the closing field. */
const shownClose = (close: string) => (close === '24:00' ? '00:00' : close);
const storedClose = (close: string) => (close === '00:00' ? '24:00' : close);

function zones(current: string): string[] {
  const all = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return [...new Set(['UTC', current, ...all])].sort();
}

function openingText(h: Hours): string {
  if (!h.enabled) return 'Business hours are off: customers are never told the team is away.';
  if (h.is_open) return 'Open now.';
  if (!h.next_open_at) return 'Closed now, with no opening in the next 60 days.';
  const at = new Date(h.next_open_at);
  return `Closed now. Opens ${at.toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: HOUR, minute: '2-digit', timeZone: h.timezone })} (${h.timezone}).`;
}

export function BusinessHours() {
  const awayHint = useId();
  const zoneHint = useId();
  const { data, error, setData } = useLoad(() => api.get<Hours>('/api/v1/settings/business-hours'));
  const manage = can('business_hours.update');
  const [draft, setDraft] = useState<Hours | null>(null);
  const [holiday, setHoliday] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => setDraft(data), [data]);

  const save = useAction(async () => {
    if (!draft) return;
    setSaved(false);
    const week = Object.fromEntries(DAYS.map(([d]) => [d, draft.week[d].map((s) => ({ open: s.open, close: storedClose(s.close) }))]));
    setData(
      await api.patch<Hours>('/api/v1/settings/business-hours', {
        enabled: draft.enabled,
        timezone: draft.timezone,
        week,
        holidays: draft.holidays,
        out_of_hours_message: draft.out_of_hours_message,
      }),
    );
    setSaved(true);
  });

  const setDay = (day: Day, shifts: Shift[]) => draft && setDraft({ ...draft, week: { ...draft.week, [day]: shifts } });
  const setShift = (day: Day, i: number, change: Partial<Shift>) =>
    draft &&
    setDay(
      day,
      draft.week[day].map((s, j) => (j === i ? { ...s, ...change } : s)),
    );
  const addHoliday = () => {
    if (!draft || !holiday || draft.holidays.includes(holiday)) return;
    setDraft({ ...draft, holidays: [...draft.holidays, holiday].sort() });
    setHoliday('');
  };

  return (
    <Section
      title="Business hours"
      intro="When your team works. A customer who writes outside these hours gets your away message once, and the website widget shows when you are back."
      error={error}
      loading={!draft}
    >
      {draft && data && (
        <form class="stack" aria-label="Business hours" onSubmit={save.onSubmit}>
          <div class="card card-row">
            <div class="grow">
              <div class="card-title">Use business hours</div>
              <div class="small muted" role="status">
                {openingText(data)}
              </div>
            </div>
            <label class="switch">
              <input
                type="checkbox"
                role="switch"
                aria-label="Use business hours"
                checked={draft.enabled}
                disabled={!manage}
                onChange={(e) => {
                  const enabled = e.currentTarget.checked;
                  setDraft({ ...draft, enabled, week: enabled && noDayOpen(draft.week) ? usualWeek() : draft.week });
                }}
              />
              <span aria-hidden="true" />
            </label>
          </div>

          <div class="card stack">
            <label class="field tz-field">
              <span class="field-label">Time zone</span>
              <select
                class="input"
                aria-describedby={zoneHint}
                value={draft.timezone}
                disabled={!manage}
                onChange={(e) => setDraft({ ...draft, timezone: e.currentTarget.value })}
              >
                {zones(draft.timezone).map((z) => (
                  <option value={z}>{z.replace(/_/g, ' ')}</option>
                ))}
              </select>
              <FieldHint id={zoneHint}>Hours follow the clock there, summer time included.</FieldHint>
            </label>

            <div>
              <div class="field-label">Week</div>
              <ul class="week" aria-label="Week">
                {DAYS.map(([day, name]) => {
                  const shifts = draft.week[day];
                  return (
                    <li class="week-day" aria-label={name}>
                      <label class="week-name">
                        <input
                          type="checkbox"
                          checked={shifts.length > 0}
                          disabled={!manage}
                          aria-label={`Open on ${name}`}
                          onChange={(e) => setDay(day, e.currentTarget.checked ? [{ open: '09:00', close: '17:00' }] : [])}
                        />
                        <span>{name}</span>
                      </label>
                      <div class="week-shifts">
                        {shifts.length === 0 && <span class="muted small week-closed">Closed</span>}
                        {shifts.map((s, i) => (
                          <div class="shift">
                            <input
                              class="input small"
                              type="time"
                              aria-label={`${name} opens`}
                              value={s.open}
                              disabled={!manage}
                              onInput={(e) => setShift(day, i, { open: e.currentTarget.value })}
                            />
                            <span class="muted">to</span>
                            <input
                              class="input small"
                              type="time"
                              aria-label={`${name} closes`}
                              value={shownClose(s.close)}
                              disabled={!manage}
                              onInput={(e) => setShift(day, i, { close: e.currentTarget.value })}
                            />
                            {manage && (
                              <button
                                type="button"
                                class="btn small ghost"
                                aria-label={`Remove ${name} hours ${i + 1}`}
                                onClick={() =>
                                  setDay(
                                    day,
                                    shifts.filter((_, j) => j !== i),
                                  )
                                }
                              >
                                ×
                              </button>
                            )}
                          </div>
                        ))}
                        {manage && shifts.length > 0 && shifts.length < 6 && (
                          <button
                            type="button"
                            class="btn small ghost"
                            aria-label={`Add hours on ${name}`}
                            onClick={() => setDay(day, [...shifts, { open: '18:00', close: '20:00' }])}
                          >
                            + Hours
                          </button>
                        )}
                      </div>
                    </li>
                  );
                })}
              </ul>
              <p class="field-hint">
                A closing time of 00:00 is midnight at the end of the day. For a night shift, end one day at 00:00 and start the next at 00:00.
              </p>
            </div>
          </div>

          <div class="card stack">
            <div>
              <div class="field-label">Holidays</div>
              <ul class="holidays" aria-label="Holidays">
                {draft.holidays.map((d) => (
                  <li class="chip">
                    {new Date(`${d}T12:00:00Z`).toLocaleDateString(undefined, {
                      weekday: 'short',
                      day: 'numeric',
                      month: 'short',
                      year: 'numeric',
                      timeZone: 'UTC',
                    })}
                    {manage && (
                      <button
                        type="button"
                        class="chip-x"
                        aria-label={`Remove holiday ${d}`}
                        onClick={() => setDraft({ ...draft, holidays: draft.holidays.filter((h) => h !== d) })}
                      >
                        ×
                      </button>
                    )}
                  </li>
                ))}
                {draft.holidays.length === 0 && <li class="muted small">No holidays.</li>}
              </ul>
            </div>
            {manage && (
              <div class="holiday-add">
                <input class="input small" type="date" aria-label="Holiday date" value={holiday} onInput={(e) => setHoliday(e.currentTarget.value)} />
                <button type="button" class="btn small" onClick={addHoliday} disabled={!holiday}>
                  Add holiday
                </button>
              </div>
            )}
          </div>

          <label class="field card">
            <span class="field-label">Away message</span>
            <textarea
              class="input"
              aria-describedby={awayHint}
              rows={3}
              maxLength={2000}
              required
              value={draft.out_of_hours_message}
              disabled={!manage}
              onInput={(e) => setDraft({ ...draft, out_of_hours_message: e.currentTarget.value })}
            />
            <FieldHint id={awayHint}>
              Sent through the customer's channel to the first message outside your hours, once until you open again. It does not count toward your monthly
              messages.
            </FieldHint>
          </label>

          <Notice>{save.error}</Notice>
          {manage ? (
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
          ) : (
            <p class="muted small">The owner and admins change business hours.</p>
          )}
        </form>
      )}
    </Section>
  );
}
