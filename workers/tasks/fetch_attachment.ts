/**
 * fetch_attachment: one attachment a customer sent, downloaded from the platform into storage
 * (core/commands/attachments.ts). Transient failures throw (graphile-worker retries with
 * backoff); the last attempt, and any permanent refusal, marks the attachment failed with the reason.
 */
import { fetchAttachment } from '../../core/commands/attachments.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'fetch_attachment',
  run: async (payload, deps, helpers) => {
    const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
    const outcome = await fetchAttachment(deps, { messageId: payload.message_id, index: payload.index, lastAttempt });
    helpers.logger.debug(`attachment ${payload.index} of ${payload.message_id}: ${outcome}`);
  },
});
