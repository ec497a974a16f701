/** erase_customer: everything of a customer whose erasure was requested (core/commands/customers.ts). */
import { eraseCustomer } from '../../core/commands/customers.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'erase_customer',
  run: async (payload, deps) => {
    const erased = await eraseCustomer(deps.db, deps.config, { businessId: payload.business_id, customerId: payload.customer_id });
    // Counts only: the customer's data is what was just erased.
    if (erased) deps.logger.info({ business_id: payload.business_id, ...erased }, 'customer erased');
  },
});
