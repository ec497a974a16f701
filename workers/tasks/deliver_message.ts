/**
 * deliver_message: replies out through their conversation's channel.
 * - `{conversation_id}`: the conversation's delivery drain, its queued replies oldest first
 *   (core/commands/delivery-drain.ts); armed by storing a reply (sendMessage).
 * - `{message_id}`: one reply queued again and its conversation's drain armed: what `parley jobs
 *   retry` runs for a reply that failed for good, and the job a reply had before the drains.
 * Safe to run twice: a reply is sent only while `queued`, and never again once it has a platform id.
 */
import { drainDeliveries, requeueReply } from '../../core/commands/delivery-drain.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'deliver_message',
  run: async (payload, deps, helpers) => {
    if ('message_id' in payload) return requeueReply(deps, payload.message_id);
    const outcome = await drainDeliveries(deps, payload.conversation_id, { id: String(helpers.job.id), abortSignal: helpers.abortSignal });
    if (outcome.sent + outcome.failed > 0)
      helpers.logger.debug(`delivered ${outcome.sent}, failed ${outcome.failed}${outcome.waiting ? ', the rest waits' : ''}`);
  },
});
