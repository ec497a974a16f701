/** apply_retention (crontab, daily): conversations past their business's retention period (core/commands/customers.ts). */
import { applyRetention } from '../../core/commands/customers.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'apply_retention',
  run: async (_payload, deps) => {
    const deleted = await applyRetention(deps.db, deps.config);
    if (deleted > 0) deps.logger.info({ deleted }, 'conversations past their retention period deleted');
  },
});
