/**
 * end_billing_grace (crontab, hourly): a subscription Stripe reported past due keeps its plan
 * for PAST_DUE_GRACE_DAYS; after that the business goes to Free (what exists stays, nothing new
 * beyond Free's limits). A payment in between ends the grace (an `active` subscription event).
 */
import { endBillingGrace } from '../../core/commands/billing.ts';
import { recordAudit } from '../../core/domain/platform/audit.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'end_billing_grace',
  run: async (_payload, deps) => {
    const ended = await deps.db.transaction(async (tx) => {
      const ids = await endBillingGrace(tx);
      for (const businessId of ids) {
        await recordAudit(tx, {
          businessId,
          actor: { type: 'system', name: 'Parley' },
          action: 'plan.changed',
          targetType: 'plan',
          targetId: 'Free',
          details: { outcome: 'grace_ended', plan: 'Free' },
        });
      }
      return ids;
    });
    if (ended.length > 0) deps.logger.info({ businesses: ended }, 'past-due grace over: moved to Free');
  },
});
