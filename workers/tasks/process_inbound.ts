/** process_inbound: turns one stored inbound event into customer, conversation and message rows. */
import { processInboundEvent } from '../../core/commands/inbound.ts';
import { publishEvents } from '../../core/live-events.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'process_inbound',
  run: async ({ event_id }, deps) => {
    await publishEvents(deps, await processInboundEvent(deps.db, event_id));
  },
});
