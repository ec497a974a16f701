/**
 * Logging for the graphile-worker runner and WorkerUtils.
 *
 * A failed attempt that will be retried is routine (a platform down for a while): one `warn`
 * line with the task, job id, attempt and reason; its stack goes to `debug`. `error` is kept
 * for what needs a person: the last attempt failed (the job now waits in `parley jobs failed`),
 * and graphile-worker's own errors.
 */
import { Logger as WorkerLogger, type LogLevel } from 'graphile-worker';
import type { Logger } from './logger.ts';

const levels: Record<LogLevel, 'error' | 'warn' | 'info' | 'debug'> = { error: 'error', warning: 'warn', info: 'info', debug: 'debug' };

/**
 * graphile-worker's log lines through pino. Only the scope and the error are kept: the rest of
 * its metadata holds whole jobs (payloads) and worker objects.
 */
export function workerLogger(logger: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const fields: Record<string, unknown> = { component: 'graphile-worker' };
    if (scope.taskIdentifier) fields.task = scope.taskIdentifier;
    if (scope.jobId) fields.job_id = scope.jobId;
    if (scope.workerId) fields.worker_id = scope.workerId;
    const failedJob = meta?.failure ? jobOf(meta) : null;
    if (failedJob) return logFailedAttempt(logger, fields, failedJob, meta!.error);
    if (meta?.error) fields.err = meta.error;
    logger[levels[level] ?? 'info'](fields, message);
  });
}

type FailedJob = { id: string; task_identifier: string; attempts: number; max_attempts: number };

function jobOf(meta: { job?: unknown }): FailedJob | null {
  const job = meta.job as Partial<FailedJob> | undefined;
  return job && typeof job.attempts === 'number' && typeof job.max_attempts === 'number' ? (job as FailedJob) : null;
}

function logFailedAttempt(logger: Logger, scope: Record<string, unknown>, job: FailedJob, error: unknown): void {
  const fields = { ...scope, task: job.task_identifier, job_id: String(job.id), attempt: job.attempts, max_attempts: job.max_attempts };
  const what = `${job.task_identifier} job ${job.id} attempt ${job.attempts}/${job.max_attempts} failed`;
  if (job.attempts < job.max_attempts) {
    logger.warn(fields, `${what}, will retry: ${reasonOf(error)}`);
    logger.debug({ ...fields, err: error }, `${what}: stack`);
  } else {
    logger.error({ ...fields, err: error }, `${what}, no attempts left (parley jobs failed): ${reasonOf(error)}`);
  }
}

/** The error's message and its causes' (each once), on one line. */
export function reasonOf(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !parts.some((part) => part.includes(message))) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ').replace(/\s*\n\s*/g, ' ') || 'no error message';
}
