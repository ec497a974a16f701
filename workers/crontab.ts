/**
 * Recurring jobs. A schedule adds one entry here: `task` (a task in tasks/index.ts), `match`
 * (a cron pattern in UTC: `min hour dom month dow`, e.g. `* * * * *` every minute) and
 * optional `options` (`backfillPeriod` ms, `maxAttempts`, `queueName`, `jobKey`, `priority`)
 * and `payload` (the task also receives `_cron: {ts, backfilled}`; its schema must allow it).
 *
 * Every worker process schedules the entries whose task it runs (WORKER_TASKS); graphile-worker
 * records each tick in `known_crontabs`, so several processes never enqueue one tick twice.
 */
import type { CronItem } from 'graphile-worker';
import { jobCatalogue, type JobName } from '../core/jobs.ts';

export const crontab: (CronItem & { task: JobName })[] = [
  // Channels that cannot push (Telegram without https, IMAP mailboxes): one poll each minute.
  { task: 'poll_channels', match: '* * * * *', options: { backfillPeriod: 0, maxAttempts: jobCatalogue.poll_channels.maxAttempts } },
  // Snoozed conversations whose time has come wake; due scheduled replies their job missed go out.
  { task: 'wake_snoozed_conversations', match: '* * * * *', options: { backfillPeriod: 0, maxAttempts: jobCatalogue.wake_snoozed_conversations.maxAttempts } },
  { task: 'release_scheduled_replies', match: '* * * * *', options: { backfillPeriod: 0, maxAttempts: jobCatalogue.release_scheduled_replies.maxAttempts } },
  // Past-due subscriptions whose grace period is over go to Free.
  // Uploads no message used within a day.
  { task: 'remove_unattached_uploads', match: '41 * * * *', options: { backfillPeriod: 0, maxAttempts: jobCatalogue.remove_unattached_uploads.maxAttempts } },
  // SLA due times that passed: each breach recorded and announced once.
  { task: 'sla_check', match: '* * * * *', options: { backfillPeriod: 0, maxAttempts: jobCatalogue.sla_check.maxAttempts } },
  // Conversations past their business's retention period (03:23 UTC).
  { task: 'apply_retention', match: '23 3 * * *', options: { backfillPeriod: 0, maxAttempts: jobCatalogue.apply_retention.maxAttempts } },
  { task: 'end_billing_grace', match: '17 * * * *', options: { backfillPeriod: 0, maxAttempts: jobCatalogue.end_billing_grace.maxAttempts } },
];
