/** out_of_hours_reply: the business's out-of-hours notice to a customer, once per closed period (core/commands/business-hours.ts). */
import { replyIfOutOfHours } from '../../core/commands/business-hours.ts';
import { publishEvents } from '../../core/events/live.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'out_of_hours_reply',
  run: async ({ message_id }, deps) => {
    await publishEvents(deps, await replyIfOutOfHours(deps.db, message_id));
  },
});
