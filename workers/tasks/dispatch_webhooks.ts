/**
 * dispatch_webhooks: the events one transaction made, for the business's webhook endpoints: one
 * delivery row and one deliver_webhook job per subscribed endpoint (core/commands/webhooks-out.ts).
 * Safe to run twice: a delivery exists once per (endpoint, event id).
 */
import { dispatchWebhookEvents } from '../../core/commands/webhooks-out.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'dispatch_webhooks',
  run: async (payload, deps) => {
    await dispatchWebhookEvents(deps, payload);
  },
});
