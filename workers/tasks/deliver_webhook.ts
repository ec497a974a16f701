/**
 * deliver_webhook: one signed POST of one delivery (core/commands/webhooks-out.ts). A network
 * error, a timeout, 408, 429 or 5xx throws, so graphile-worker tries again with exponential
 * backoff (for about three days); a delivered or abandoned delivery is never sent again.
 */
import { attemptDelivery } from '../../core/commands/webhooks-out.ts';
import { catalogueTask } from '../task.ts';

export class WebhookRetry extends Error {}

export default catalogueTask({
  name: 'deliver_webhook',
  run: async (payload, deps, helpers) => {
    const finalAttempt = helpers.job.attempts >= helpers.job.max_attempts;
    const outcome = await attemptDelivery(deps, { businessId: payload.business_id, deliveryId: payload.delivery_id, finalAttempt });
    if (outcome === 'retry') throw new WebhookRetry(`webhook delivery ${payload.delivery_id} not accepted yet; retried later`);
  },
});
