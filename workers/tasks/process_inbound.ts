/**
 * process_inbound: turns stored inbound events into customer, conversation and message rows.
 * `{channel_id}` drains every pending event of the channel in arrival order (what storing an
 * event enqueues); `{event_id}` applies one event (an event the drain failed on, retried alone).
 */
import { processInboundEvent } from '../../core/commands/inbound.ts';
import { drainInbound } from '../../core/commands/inbound-drain.ts';
import { publishEvents, type PendingEvent } from '../../core/events/live.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'process_inbound',
  run: async (payload, deps, helpers) => {
    const publish = (events: PendingEvent[]) => publishEvents(deps, events);
    if ('channel_id' in payload) await drainInbound(deps.db, payload.channel_id, publish, String(helpers.job.id));
    else await publish(await processInboundEvent(deps.db, payload.event_id));
  },
});
