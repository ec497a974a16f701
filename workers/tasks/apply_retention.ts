/** apply_retention (crontab, daily): conversations past their business's retention period (core/commands/customers.ts). */
import { applyRetention } from '../../core/commands/customers.ts';
import { storageFor } from '../../core/adapters/storage.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'apply_retention',
  run: async (_payload, deps) => {
    const storage = storageFor(deps.config.STORAGE_DRIVER, deps.config.dataDir);
    const deleted = await applyRetention(deps.db, storage);
    if (deleted > 0) deps.logger.info({ deleted }, 'conversations past their retention period deleted');
  },
});
