/** remove_unattached_uploads (crontab, hourly): uploads no message used within a day are removed (core/commands/uploads-housekeeping.ts). */
import { removeUnattachedUploads } from '../../core/commands/uploads-housekeeping.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'remove_unattached_uploads',
  run: async (_payload, deps) => {
    let removed = 0;
    for (let batch = await removeUnattachedUploads(deps.db, deps.config); batch > 0; batch = await removeUnattachedUploads(deps.db, deps.config))
      removed += batch;
    if (removed > 0) deps.logger.info({ removed }, 'removed uploads no message used');
  },
});
