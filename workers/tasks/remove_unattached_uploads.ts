/** remove_unattached_uploads (crontab, hourly): uploads no message used within a day are removed (core/commands/uploads-housekeeping.ts). */
import { removeUnattachedUploads } from '../../core/commands/uploads-housekeeping.ts';
import { storageFor } from '../../core/adapters/storage.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'remove_unattached_uploads',
  run: async (_payload, deps) => {
    const storage = storageFor(deps.config.STORAGE_DRIVER, deps.config.dataDir);
    let removed = 0;
    for (let batch = await removeUnattachedUploads(deps.db, storage); batch > 0; batch = await removeUnattachedUploads(deps.db, storage)) removed += batch;
    if (removed > 0) deps.logger.info({ removed }, 'removed uploads no message used');
  },
});
