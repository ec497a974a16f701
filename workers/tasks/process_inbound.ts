/**
 * process_inbound: turns stored inbound events into customer, conversation and message rows.
 * `{channel_id}` drains every pending event of the channel in arrival order (what storing an
 * event enqueues); `{event_id}` applies one event (an event the drain failed on, retried alone).
 */
import { z } from 'zod';
import { processInboundEvent } from '../../core/commands/inbound.ts';
import { drainInbound } from '../../core/commands/inbound-drain.ts';
import { defineTask } from '../task.ts';

export default defineTask({
  name: 'process_inbound',
  payload: z.union([z.object({ channel_id: z.uuid() }), z.object({ event_id: z.uuid() })]),
  run: async (payload, deps) => {
    const publish = (events: Awaited<ReturnType<typeof processInboundEvent>>) => {
      for (const event of events) deps.events.publish(event);
    };
    if ('channel_id' in payload) await drainInbound(deps.db, payload.channel_id, publish);
    else publish(await processInboundEvent(deps.db, payload.event_id));
  },
});
