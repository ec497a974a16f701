/** wake_snoozed_conversations (crontab, every minute): snoozed conversations whose time has come wake (core/commands/snooze.ts). */
import { wakeDueSnoozes } from '../../core/commands/snooze.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'wake_snoozed_conversations',
  run: async (_payload, deps) => {
    const woken = await wakeDueSnoozes(deps);
    if (woken > 0) deps.logger.info({ woken }, 'woke snoozed conversations');
  },
});
