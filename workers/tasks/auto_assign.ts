/** auto_assign: the business's waiting conversations to live agents under capacity (core/commands/auto-assign.ts). */
import { runAutoAssign } from '../../core/commands/auto-assign.ts';
import { publishEvents } from '../../core/events/live.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'auto_assign',
  run: async ({ business_id }, deps) => {
    await runAutoAssign(deps.db, business_id, (events) => publishEvents(deps, events));
  },
});
