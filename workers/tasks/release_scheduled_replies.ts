/** release_scheduled_replies (crontab, every minute): due scheduled replies their own job did not release (core/commands/scheduled-replies.ts). */
import { releaseDueReplies } from '../../core/commands/scheduled-replies.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'release_scheduled_replies',
  run: async (_payload, deps) => {
    const released = await releaseDueReplies(deps);
    if (released > 0) deps.logger.info({ released }, 'released due scheduled replies');
  },
});
