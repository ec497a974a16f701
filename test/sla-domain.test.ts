/**
 * SLA arithmetic (core/domain/sla.ts): due times in calendar time and in working time, across the
 * DST changes of 2026 (Europe/Berlin 29 March and 25 October; America/New_York 8 March), the
 * policy a conversation follows, and which targets are breached. Expected instants are in UTC.
 */
import test from 'ava';
import type { Hours, Week } from '../core/domain/business-hours.ts';
import { addWorkingMinutes, breachedTargets, choosePolicy, slaDue, unmetTargets, type SlaClock, type SlaPolicyRule } from '../core/domain/sla.ts';

const nineToFive = { open: '09:00', close: '17:00' };
const weekdays: Week = { mon: [nineToFive], tue: [nineToFive], wed: [nineToFive], thu: [nineToFive], fri: [nineToFive] };
const berlin: Hours = { timezone: 'Europe/Berlin', week: weekdays, holidays: [] };
const newYork: Hours = { timezone: 'America/New_York', week: weekdays, holidays: [] };
const add = (iso: string, minutes: number, hours: Hours | null) => addWorkingMinutes(new Date(iso), minutes, hours)?.toISOString() ?? null;

test('calendar minutes: plain addition, DST or not', (t) => {
  t.is(add('2026-03-29T00:30:00Z', 120, null), '2026-03-29T02:30:00.000Z');
  t.is(add('2026-07-01T10:00:00Z', 1440, null), '2026-07-02T10:00:00.000Z');
});

test('working minutes within one open period, and carried over the night', (t) => {
  // Wednesday 1 July, Berlin CEST (UTC+2): 10:00 local + 60 = 11:00 local.
  t.is(add('2026-07-01T08:00:00Z', 60, berlin), '2026-07-01T09:00:00.000Z');
  // 16:30 local + 60: 30 minutes today, 30 tomorrow from 09:00 → Thursday 09:30 local = 07:30Z.
  t.is(add('2026-07-01T14:30:00Z', 60, berlin), '2026-07-02T07:30:00.000Z');
  // Started while closed (Wednesday 20:00 local): the clock starts at Thursday 09:00.
  t.is(add('2026-07-01T18:00:00Z', 30, berlin), '2026-07-02T07:30:00.000Z');
  // A whole working day (480 minutes) from Friday 12:00 ends Monday 12:00.
  t.is(add('2026-07-03T10:00:00Z', 480, berlin), '2026-07-06T10:00:00.000Z');
});

test('Berlin, spring forward: Friday 16:30 CET + 60 working minutes is Monday 09:30 CEST (07:30Z, not 08:30Z)', (t) => {
  t.is(add('2026-03-27T15:30:00Z', 60, berlin), '2026-03-30T07:30:00.000Z');
  // In calendar time the same target would be due Friday 17:30 CET.
  t.is(add('2026-03-27T15:30:00Z', 60, null), '2026-03-27T16:30:00.000Z');
});

test('Berlin, fall back: Friday 16:00 CEST + 120 working minutes is Monday 10:00 CET (09:00Z)', (t) => {
  t.is(add('2026-10-23T14:00:00Z', 120, berlin), '2026-10-26T09:00:00.000Z');
});

test('New York, spring forward: Friday 16:00 EST + 90 working minutes is Monday 09:30 EDT (13:30Z: 60 on Friday, 30 on Monday)', (t) => {
  t.is(add('2026-03-06T21:00:00Z', 90, newYork), '2026-03-09T13:30:00.000Z');
});

test('a night shift over the change counts the hours the clock really ran', (t) => {
  // Sunday 29 March 01:00–05:00 on the wall in Berlin is three real hours (02:00–03:00 does not exist).
  const night: Hours = { timezone: 'Europe/Berlin', week: { sun: [{ open: '01:00', close: '05:00' }] }, holidays: [] };
  t.is(add('2026-03-29T00:00:00Z', 180, night), '2026-03-29T03:00:00.000Z');
  // One minute more waits for the next Sunday's shift (CEST: 01:00 = 23:00Z Saturday).
  t.is(add('2026-03-29T00:00:00Z', 181, night), '2026-04-04T23:01:00.000Z');
});

test('no opening within 60 days: no due time', (t) => {
  t.is(add('2026-07-01T08:00:00Z', 60, { timezone: 'UTC', week: {}, holidays: [] }), null);
});

const policy = (fields: Partial<SlaPolicyRule> & { id: string; name: string }): SlaPolicyRule => ({
  first_response_minutes: 30,
  next_response_minutes: 60,
  resolution_minutes: 480,
  business_hours_only: false,
  channel_ids: [],
  label_ids: [],
  ...fields,
});

test('policy choice: a label beats a channel beats the catch-all; by name among equals', (t) => {
  const all = policy({ id: 'all', name: 'Everyone' });
  const chat = policy({ id: 'chat', name: 'Chat', channel_ids: ['ch1'] });
  const vipB = policy({ id: 'vipB', name: 'VIP b', label_ids: ['vip'] });
  const vipA = policy({ id: 'vipA', name: 'a VIP', label_ids: ['vip', 'gold'] });
  const policies = [all, chat, vipB, vipA];
  t.is(choosePolicy(policies, { channel_id: 'ch1', label_ids: ['vip'] })?.id, 'vipA');
  t.is(choosePolicy(policies, { channel_id: 'ch1', label_ids: ['other'] })?.id, 'chat');
  t.is(choosePolicy(policies, { channel_id: 'ch2', label_ids: [] })?.id, 'all');
  t.is(choosePolicy([chat, vipB], { channel_id: 'ch2', label_ids: [] }), null);
});

const clock = (fields: Partial<SlaClock>): SlaClock => ({
  status: 'open',
  created_at: new Date('2026-07-01T08:00:00Z'),
  first_response_at: null,
  finished_at: null,
  waiting_since: null,
  answered: null,
  ...fields,
});
const p = policy({ id: 'p', name: 'P' });
const iso = (d: Date | undefined | null) => d?.toISOString() ?? null;

test('due times of an open conversation; breached once past due', (t) => {
  const due = slaDue(p, null, clock({}));
  t.is(iso(due.first_response?.due_at), '2026-07-01T08:30:00.000Z');
  t.is(iso(due.resolution?.due_at), '2026-07-01T16:00:00.000Z');
  t.is(due.next_response, null);
  t.deepEqual(
    unmetTargets(due).map((s) => s.target),
    ['first_response', 'resolution'],
  );
  t.deepEqual(breachedTargets(due, new Date('2026-07-01T08:30:00Z')), [], 'exactly at the due time is not late');
  t.deepEqual(
    breachedTargets(due, new Date('2026-07-01T08:31:00Z')).map((s) => s.target),
    ['first_response'],
  );
});

test('next response: the customer waiting after a reply; a reply late is a breach, on time is none', (t) => {
  const replied = new Date('2026-07-01T08:10:00Z');
  const waiting = slaDue(p, null, clock({ first_response_at: replied, waiting_since: new Date('2026-07-01T09:00:00Z') }));
  t.is(iso(waiting.next_response?.due_at), '2026-07-01T10:00:00.000Z');
  t.is(unmetTargets(waiting)[0].target, 'next_response');
  const late = slaDue(
    p,
    null,
    clock({ first_response_at: replied, answered: { since: new Date('2026-07-01T09:00:00Z'), replied_at: new Date('2026-07-01T10:05:00Z') } }),
  );
  t.deepEqual(
    breachedTargets(late, new Date('2026-07-01T10:06:00Z')).map((s) => s.target),
    ['next_response'],
  );
  const onTime = slaDue(
    p,
    null,
    clock({ first_response_at: replied, answered: { since: new Date('2026-07-01T09:00:00Z'), replied_at: new Date('2026-07-01T09:59:00Z') } }),
  );
  t.deepEqual(breachedTargets(onTime, new Date('2026-07-01T12:00:00Z')), []);
});

test('resolved: nothing left due; resolved late is a resolution breach', (t) => {
  const due = slaDue(
    p,
    null,
    clock({ status: 'resolved', first_response_at: new Date('2026-07-01T08:05:00Z'), finished_at: new Date('2026-07-01T17:00:00Z') }),
  );
  t.deepEqual(unmetTargets(due), []);
  t.deepEqual(
    breachedTargets(due, new Date('2026-07-02T00:00:00Z')).map((s) => s.target),
    ['resolution'],
  );
});

test('business hours: due times in working time (Berlin, over the spring change)', (t) => {
  const bh = { ...p, business_hours_only: true };
  const due = slaDue(bh, berlin, clock({ created_at: new Date('2026-03-27T15:30:00Z') }));
  t.is(iso(due.first_response?.due_at), '2026-03-27T16:00:00.000Z', 'Friday 16:30 CET + 30 working minutes = Friday 17:00 CET');
  t.is(iso(due.resolution?.due_at), '2026-03-30T14:30:00.000Z', '480 working minutes: 30 on Friday, 450 on Monday to 16:30 CEST');
});
