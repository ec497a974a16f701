/** process_inbound: turns one stored inbound event into customer, conversation and message rows. */
import { z } from 'zod';
import { processInboundEvent } from '../../core/commands/inbound.ts';
import { defineTask } from '../task.ts';

export default defineTask({
  name: 'process_inbound',
  payload: z.object({ event_id: z.uuid() }),
  run: async ({ event_id }, deps) => {
    const events = await processInboundEvent(deps.db, event_id);
    for (const event of events) deps.events.publish(event);
  },
});
