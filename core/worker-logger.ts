/** Logging for the graphile-worker runner and WorkerUtils. */
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
    if (meta?.error) fields.err = meta.error;
    logger[levels[level] ?? 'info'](fields, message);
  });
}
