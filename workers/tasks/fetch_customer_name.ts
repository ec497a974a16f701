/**
 * fetch_customer_name: the platform's name for a customer whose messages carry none (Instagram),
 * core/commands/customer-names.ts. A transient failure throws (graphile-worker retries with
 * backoff); a refusal leaves the customer as they were.
 */
import { fetchCustomerName } from '../../core/commands/customer-names.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'fetch_customer_name',
  run: async (payload, deps, helpers) => {
    const outcome = await fetchCustomerName(deps, payload.customer_id);
    helpers.logger.debug(`customer ${payload.customer_id}: ${outcome}`);
  },
});
