/** send_scheduled_reply {message_id}: a scheduled reply goes out at its `send_at` (core/commands/scheduled-replies.ts). Safe to run twice. */
import { releaseScheduledReply } from '../../core/commands/scheduled-replies.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'send_scheduled_reply',
  run: async (payload, deps) => {
    const outcome = await releaseScheduledReply(deps, payload.message_id);
    deps.logger.debug({ message_id: payload.message_id, outcome }, 'scheduled reply');
  },
});
