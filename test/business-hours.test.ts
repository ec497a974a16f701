/**
 * Business hours arithmetic (core/domain/business-hours.ts), across the DST changes of 2026 in
 * Europe/Berlin (29 March 02:00 → 03:00, 25 October 03:00 → 02:00) and America/New_York
 * (8 March 02:00 → 03:00, 1 November 02:00 → 01:00). Expected instants are written in UTC.
 */
import test from 'ava';
import { hoursState, isOpenAt, isTimeZone, weekProblem, zonedToInstant, type Hours, type Week } from '../core/domain/business-hours.ts';

const nineToFive = { open: '09:00', close: '17:00' };
const weekdays: Week = { mon: [nineToFive], tue: [nineToFive], wed: [nineToFive], thu: [nineToFive], fri: [nineToFive] };
const berlin: Hours = { timezone: 'Europe/Berlin', week: weekdays, holidays: [] };
const newYork: Hours = { timezone: 'America/New_York', week: weekdays, holidays: [] };
const at = (iso: string) => new Date(iso);
const state = (hours: Hours, iso: string) => {
  const s = hoursState(hours, at(iso));
  return { open: s.open, until: s.until?.toISOString() ?? null };
};

test('Berlin, spring forward: Friday closes at 17:00 CET, Monday opens at 09:00 CEST (one hour earlier in UTC)', (t) => {
  t.deepEqual(state(berlin, '2026-03-27T15:59:00Z'), { open: true, until: '2026-03-27T16:00:00.000Z' });
  t.deepEqual(state(berlin, '2026-03-27T16:00:00Z'), { open: false, until: '2026-03-30T07:00:00.000Z' });
  t.false(isOpenAt(berlin, at('2026-03-30T06:59:59Z')));
  t.deepEqual(state(berlin, '2026-03-30T07:00:00Z'), { open: true, until: '2026-03-30T15:00:00.000Z' });
});

test('Berlin, fall back: Friday closes at 17:00 CEST, Monday opens at 09:00 CET', (t) => {
  t.deepEqual(state(berlin, '2026-10-23T14:00:00Z'), { open: true, until: '2026-10-23T15:00:00.000Z' });
  t.deepEqual(state(berlin, '2026-10-24T12:00:00Z'), { open: false, until: '2026-10-26T08:00:00.000Z' });
  t.deepEqual(state(berlin, '2026-10-26T08:00:00Z'), { open: true, until: '2026-10-26T16:00:00.000Z' });
});

test('New York, spring forward and fall back', (t) => {
  t.deepEqual(state(newYork, '2026-03-06T22:00:00Z'), { open: false, until: '2026-03-09T13:00:00.000Z' });
  t.deepEqual(state(newYork, '2026-03-09T13:00:00Z'), { open: true, until: '2026-03-09T21:00:00.000Z' });
  t.deepEqual(state(newYork, '2026-10-30T21:00:00Z'), { open: false, until: '2026-11-02T14:00:00.000Z' });
  t.true(isOpenAt(newYork, at('2026-11-02T21:59:00Z')));
  t.false(isOpenAt(newYork, at('2026-11-02T22:00:00Z')));
});

test('a shift over the change itself lasts two hours less or more, by the clock on the wall', (t) => {
  const sunday: Week = { sun: [{ open: '01:00', close: '04:00' }] };
  // 29 March: 01:00 CET = 00:00Z, 04:00 CEST = 02:00Z (two hours of work).
  t.deepEqual(state({ timezone: 'Europe/Berlin', week: sunday, holidays: [] }, '2026-03-29T00:30:00Z'), { open: true, until: '2026-03-29T02:00:00.000Z' });
  // 25 October: 01:00 CEST = 23:00Z the day before, 04:00 CET = 03:00Z (four hours).
  t.deepEqual(state({ timezone: 'Europe/Berlin', week: sunday, holidays: [] }, '2026-10-24T23:00:00Z'), { open: true, until: '2026-10-25T03:00:00.000Z' });
  // New York, 1 November: 01:00 EDT = 05:00Z, 04:00 EST = 09:00Z.
  t.deepEqual(state({ timezone: 'America/New_York', week: sunday, holidays: [] }, '2026-11-01T05:00:00Z'), { open: true, until: '2026-11-01T09:00:00.000Z' });
});

test('wall times in the gap move past it; repeated wall times are the earlier', (t) => {
  t.is(zonedToInstant('2026-03-29', 150, 'Europe/Berlin').toISOString(), '2026-03-29T01:30:00.000Z'); // 02:30 → 03:30 CEST
  t.is(zonedToInstant('2026-10-25', 150, 'Europe/Berlin').toISOString(), '2026-10-25T00:30:00.000Z'); // 02:30 CEST
  t.is(zonedToInstant('2026-03-08', 150, 'America/New_York').toISOString(), '2026-03-08T07:30:00.000Z'); // 02:30 → 03:30 EDT
  t.is(zonedToInstant('2026-11-01', 90, 'America/New_York').toISOString(), '2026-11-01T05:30:00.000Z'); // 01:30 EDT
  t.is(zonedToInstant('2026-07-01', 540, 'America/New_York').toISOString(), '2026-07-01T13:00:00.000Z');
  // A shift that starts in the gap starts when the clocks have moved on.
  const gap: Hours = { timezone: 'Europe/Berlin', week: { sun: [{ open: '02:30', close: '05:00' }] }, holidays: [] };
  t.deepEqual(state(gap, '2026-03-29T00:00:00Z'), { open: false, until: '2026-03-29T01:30:00.000Z' });
});

test("holidays close the whole local day; 24:00 joins the next day's 00:00 into one period", (t) => {
  const holiday: Hours = { ...berlin, holidays: ['2026-03-30'] };
  t.deepEqual(state(holiday, '2026-03-27T16:00:00Z'), { open: false, until: '2026-03-31T07:00:00.000Z' });
  const night: Hours = { timezone: 'UTC', week: { mon: [{ open: '22:00', close: '24:00' }], tue: [{ open: '00:00', close: '02:00' }] }, holidays: [] };
  t.deepEqual(state(night, '2026-03-30T23:00:00Z'), { open: true, until: '2026-03-31T02:00:00.000Z' });
  // The holiday is a date where the business is: late Sunday in New York is Monday in UTC.
  const nyHoliday: Hours = { ...newYork, holidays: ['2026-07-06'] };
  t.false(isOpenAt(nyHoliday, at('2026-07-06T14:00:00Z')));
  t.true(isOpenAt(nyHoliday, at('2026-07-07T14:00:00Z')));
});

test('no shifts: closed with no opening in sight; always open: no closing in sight', (t) => {
  t.deepEqual(state({ timezone: 'UTC', week: {}, holidays: [] }, '2026-03-30T12:00:00Z'), { open: false, until: null });
  const day = [{ open: '00:00', close: '24:00' }];
  const always: Hours = { timezone: 'Europe/Berlin', week: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day }, holidays: [] };
  t.deepEqual(state(always, '2026-03-29T01:30:00Z'), { open: true, until: null });
});

test('week and time zone validation', (t) => {
  t.is(weekProblem(weekdays), null);
  t.is(weekProblem({ mon: [{ open: '17:00', close: '09:00' }] }), 'mon: open must be before close (a shift past midnight is two shifts)');
  t.is(
    weekProblem({
      tue: [
        { open: '09:00', close: '13:00' },
        { open: '12:00', close: '17:00' },
      ],
    }),
    'tue: shifts overlap',
  );
  t.is(
    weekProblem({
      wed: [
        { open: '09:00', close: '13:00' },
        { open: '13:00', close: '17:00' },
      ],
    }),
    null,
  );
  t.regex(weekProblem({ thu: [{ open: '24:00', close: '24:00' }] }) ?? '', /^thu: open must be/);
  t.regex(weekProblem({ fri: [{ open: '09:00', close: '25:00' }] }) ?? '', /^fri: close must be/);
  t.true(isTimeZone('Europe/Berlin'));
  t.true(isTimeZone('America/New_York'));
  t.true(isTimeZone('UTC'));
  t.false(isTimeZone('Mars/Olympus_Mons'));
  t.false(isTimeZone('+01:00'));
  t.false(isTimeZone(''));
});
